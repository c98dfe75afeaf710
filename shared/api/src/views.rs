//! Wire formats: how records read from the table are shown to clients (camelCase JSON). Items
//! keep the seeds' PascalCase attribute names (declared in `model`); the API speaks camelCase,
//! and this is its contract, kept apart from how items are stored.

pub mod commerce {
    use model::commerce::{CartLine, Customer, Order, OrderLine, TrackingEvent};
    use serde_json::{Value, json};

    pub fn customer(c: &Customer) -> Value {
        json!({
            "customerId": c.customer_id,
            "name": c.name,
            "email": c.email,
            "createdAt": c.created_at,
            "updatedAt": c.updated_at,
            "orderCount": c.order_count,
            "lifetimeValue": c.lifetime_value,
        })
    }

    pub fn order_summary(o: &Order) -> Value {
        json!({
            "orderId": o.order_id,
            "customerId": o.customer_id,
            "status": o.status,
            "createdAt": o.created_at,
            "total": o.total,
            "itemCount": o.item_count,
        })
    }

    pub fn order_line(l: &OrderLine) -> Value {
        json!({ "sku": l.sku, "quantity": l.quantity, "unitPrice": l.unit_price })
    }

    pub fn tracking_event(e: &TrackingEvent) -> Value {
        json!({ "eventId": e.event_id, "status": e.status, "note": e.note, "at": e.at })
    }

    pub fn cart_line(l: &CartLine) -> Value {
        json!({ "productId": l.product_id, "quantity": l.quantity, "updatedAt": l.updated_at })
    }
}

pub mod reviews {
    use model::reviews::{Book, Review, User};
    use serde_json::{Value, json};

    pub fn book(b: &Book) -> Value {
        json!({
            "isbn": b.isbn,
            "title": b.title,
            "author": b.author,
            "publicationYear": b.publication_year,
            "rating": { "count": b.rating_count, "average": b.average_rating() },
        })
    }

    pub fn user(u: &User) -> Value {
        json!({
            "username": u.username,
            "membershipDate": u.membership_date,
            "reviewCount": u.review_count,
        })
    }

    pub fn review(r: &Review) -> Value {
        json!({
            "isbn": r.isbn,
            "username": r.username,
            "grade": r.grade,
            "text": r.review_text,
            "reviewDate": r.review_date,
        })
    }
}

pub mod learning {
    use model::learning::{Certificate, CourseOccurrence};
    use serde_json::{Value, json};

    pub fn occurrence(o: &CourseOccurrence) -> Value {
        json!({
            "courseName": o.course_name.to_string(),
            "courseKey": o.course_name.key().as_key(),
            "startDate": o.start_date,
            "location": o.location.to_string(),
            "courseType": o.course_type,
        })
    }

    pub fn certificate(c: &Certificate) -> Value {
        json!({
            "courseName": c.cert_name.to_string(),
            "courseKey": c.cert_name.key().as_key(),
            "date": c.issued_date,
            "location": c.location.to_string(),
            "student": c.student.as_str(),
            "certType": c.cert_type.to_string(),
            "instructor": c.instructor.as_str(),
            "version": c.entity_version.version().number(),
        })
    }
}
