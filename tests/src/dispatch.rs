//! Every function's handler and needs by name: the "every route has a handler" half of the
//! contract. A function of the template missing here fails the tests. Every function has the same
//! shape (`NEEDS`, `ACCESS` for the API ones, `handle(&Deps, ..)`), so each is one line.

use api::Access;
use lambda_http::{Body, Request, Response};
use store::{Needs, Table};

macro_rules! functions {
    (api: { $($name:literal => $krate:ident,)* } streams: { $($stream:literal => $skrate:ident,)* }) => {
        /// An API function's answer to `req` as its `main` gives it: authorized as it declares,
        /// with exactly the dependencies it declares.
        pub async fn handle(function: &str, table: &Table, req: Request) -> Option<Response<Body>> {
            match function {
                $($name => {
                    let deps = testkit::deps(table.clone(), $krate::NEEDS);
                    Some(api::dispatch(&deps, $krate::ACCESS, $krate::handle, req).await)
                })*
                _ => None,
            }
        }

        /// Who may call an API function.
        pub fn access(function: &str) -> Option<Access> {
            match function {
                $($name => Some($krate::ACCESS),)*
                _ => None,
            }
        }

        /// A stream handler's answer to `event`, with exactly the dependencies it declares.
        pub async fn handle_stream(
            function: &str,
            table: &Table,
            event: &streams::Event,
        ) -> Option<streams::BatchResponse> {
            match function {
                $($stream => Some($skrate::handle(&testkit::deps(table.clone(), $skrate::NEEDS), event.clone()).await),)*
                _ => None,
            }
        }

        /// What a function declares it needs from its environment.
        pub fn needs(function: &str) -> Option<Needs> {
            match function {
                $($name => Some($krate::NEEDS),)*
                $($stream => Some($skrate::NEEDS),)*
                _ => None,
            }
        }
    };
}

functions! {
    api: {
        "put-customer" => put_customer,
        "get-customer" => get_customer,
        "place-order" => place_order,
        "list-customer-orders" => list_customer_orders,
        "get-order" => get_order,
        "add-order-event" => add_order_event,
        "put-cart-line" => put_cart_line,
        "delete-cart-line" => delete_cart_line,
        "get-cart" => get_cart,
        "put-book" => put_book,
        "put-user" => put_user,
        "put-review" => put_review,
        "delete-review" => delete_review,
        "get-book" => get_book,
        "get-user" => get_user,
        "get-product-sales" => get_product_sales,
        "get-daily-stats" => get_daily_stats,
        "create-course-occurrence" => create_course_occurrence,
        "get-course-occurrence" => get_course_occurrence,
        "list-course-occurrences" => list_course_occurrences,
        "issue-certificate" => issue_certificate,
        "get-certificate" => get_certificate,
        "get-course-day" => get_course_day,
        "list-course-certificates" => list_course_certificates,
        "list-certificates" => list_certificates,
        "list-orders" => list_orders,
        "list-rep-customers" => list_rep_customers,
        "list-rep-orders" => list_rep_orders,
        "get-rep-ranking" => get_rep_ranking,
        "put-reference" => put_reference,
        "put-employee" => put_employee,
        "add-employee-job" => add_employee_job,
        "get-employee" => get_employee,
        "get-employee-job" => get_employee_job,
        "list-employees" => list_employees,
        "list-warehouse-employees" => list_warehouse_employees,
        "put-product" => put_product,
        "put-inventory" => put_inventory,
        "get-inventory" => get_inventory,
        "get-product" => get_product,
        "list-product-order-items" => list_product_order_items,
    }
    streams: {
        "commerce-stream" => commerce_stream,
        "aggregate-reviews" => aggregate_reviews,
    }
}
