//! L11–L13: `GET /certificates?type=completion[&version=1][&instructor=Tyler Walch]`: every
//! certificate of a type (L11), of one entity version (L12), or taught by an instructor (L13),
//! from GSI1, whose certificate partitions are write sharded (`<type>#<00..19>#`, the sort key's
//! code points modulo 20). Every shard is queried in parallel and the shards are merged into ONE
//! order (by `GSI1SK`: version, then instructor; ties by shard), a page at a time (`limit`,
//! default 20, 1..=100) with ONE signed cursor that holds every shard's position
//! (`store::merge`). An instructor without `version` reads both versions' keys (40 streams) until
//! the v01 certificates are migrated. Anyone may read it.

use crate::{params, views as view};
use api::declare::*;
use keys::{
    Shard,
    learning::{self as k, CERTIFICATE_SHARDS, CertVersion, Name, Person},
};
use model::learning::Certificate;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-certificates",
    Access::Staff,
    &Route::get(
        "/certificates",
        "L11-L13: certificates of a type (one version, one instructor): every shard merged into one list",
        &[
            Pattern {
                id: "L11",
                route: "`GET /certificates?type=&limit=&cursor=`",
                index: Index::Gsi1,
                request: "20 Queries in parallel `GSI1PK = <type>#00#` … `<type>#19#`, merged; within 32 read units at 4 KB a certificate",
                returns: "`{certType, certificates, nextCursor}` in `GSI1SK` order",
                example: Example::staff("/certificates?type=completion"),
            },
            Pattern {
                id: "L12",
                route: "`GET /certificates?type=&version=&limit=&cursor=`",
                index: Index::Gsi1,
                request: r#"20 Queries in parallel `GSI1PK = <type>#<shard># AND begins_with(GSI1SK, "cert#01#")`, merged; within 32 read units at 4 KB a certificate"#,
                returns: "`{certType, certificates, nextCursor}` in `GSI1SK` order",
                example: Example::staff("/certificates?type=completion&version=1"),
            },
            Pattern {
                id: "L13",
                route: "`GET /certificates?type=&instructor=[&version=]&limit=&cursor=`",
                index: Index::Gsi1,
                request: r#"20 Queries in parallel `GSI1PK = <type>#<shard># AND begins_with(GSI1SK, "cert#0v#<instructor>#")`, merged; within 32 read units at 4 KB a certificate"#,
                returns: "`{certType, certificates, nextCursor}` in `GSI1SK` order",
                example: Example::staff("/certificates?type=completion&instructor=Tyler%20Walch"),
            },
        ],
    )
    .paged(20),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>("one page of the merged list").query(&[
    Query::of::<keys::learning::CertType>("type", "").required(),
    params::VERSION,
    Query::of::<keys::schema::FreeText>("instructor", ""),
])];

api::page! {
    /// A page of certificates of a type.
    Page {
        /// the type asked for, as keys write it (`completion`)
        cert_type: &'static str,
        certificates: Vec<view::Certificate>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let cert_type = api::query(&req, "type")
        .ok_or_else(|| ApiError::invalid_parameter("type", "give type=completion or attendance"))
        .and_then(|t| params::cert_type("type", &t))?;
    let version = params::query_version(&req)?;
    let instructor = api::query(&req, "instructor")
        .map(|i| {
            Name::parse("instructor", &i).map_err(|e| ApiError::invalid_parameter("instructor", e))
        })
        .transpose()?;
    api::count_as_pattern(match (&instructor, version) {
        (Some(_), _) => "L13",
        (None, Some(_)) => "L12",
        (None, None) => "L11",
    });
    // One stream per shard, and per version when an instructor's key depends on it.
    let versions: Vec<Option<CertVersion>> = match (&instructor, version) {
        (Some(_), None) => CertVersion::ALL.map(Some).to_vec(),
        _ => vec![version],
    };
    let mut streams = Vec::new();
    for v in &versions {
        let person = instructor.as_ref().zip(*v).map(|(i, v)| Person::of(v, i));
        for n in 0..CERTIFICATE_SHARDS {
            let shard = Shard::new(n, CERTIFICATE_SHARDS).expect("a shard below the count");
            streams.push(k::certificates_of_type(
                cert_type,
                shard,
                *v,
                person.as_ref(),
            ));
        }
    }
    let binding = |limit| {
        let who = instructor.as_ref().map(Name::as_str).unwrap_or("");
        format!("L11-13|{}|{version:?}|{who}|{limit}", cert_type.tag())
    };
    let paging = api::paging(deps, &req, &FUNCTION, binding)?;
    // Within the read budget: certificates can be 4 KB each, 20 shards read at least one each.
    let largest = model::learning::Certificate::LARGEST_BYTES;
    let (items, next) = paging
        .merged_page(
            &deps.table,
            streams,
            store::merge::Direction::Ascending,
            largest,
        )
        .await?;
    let certificates = items
        .into_iter()
        .map(model::from_item::<Certificate>)
        .collect::<Result<Vec<_>, _>>()?;
    api::json(
        200,
        &Page {
            cert_type: cert_type.tag(),
            certificates: certificates.iter().map(view::certificate).collect(),
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::learning::CertType;
    use serde_json::Value;
    use testkit::Harness;

    /// A merged page is budgeted as a single query's: at `limit=100`, 80 of the largest
    /// certificates of one type (about 3.7 KB each, over 20 shards: 36 units asked for in the
    /// first round before) are more than one page, each within 32 read units, and the walk lists
    /// every certificate once.
    #[tokio::test]
    async fn a_merged_page_of_the_largest_certificates_stops_at_the_read_budget() {
        use crate::issue_certificate as issue;
        let issuer = issue::tests::issuing_the_largest().await;
        let count = 80;
        for n in 0..count {
            let widest = api::function::widest_text(keys::MAX_TEXT_LEN - 3);
            let (s, b) = issuer
                .as_staff()
                .post(
                    "/certificates",
                    &issue::largest_for(&format!("{widest}s{n:02}")),
                )
                .await;
            assert_eq!(s, 201, "{b}");
        }
        let h = Harness::new(&FUNCTION, handle, issuer.table().clone());
        let pages = testkit::walk_within_read_budget(h.table(), "100", async |q| {
            let mut q = q.to_vec();
            q.push(("type", "completion"));
            h.as_staff().get(&h.path(&[]), &q).await
        })
        .await;
        assert!(
            pages.len() > 1,
            "{count} certificates of 3.7 KB are more than one budget"
        );
        let listed = testkit::column_of_pages(&pages, "certificates", "student");
        let unique: std::collections::BTreeSet<_> = listed.iter().collect();
        assert_eq!(
            (listed.len(), unique.len()),
            (count, count),
            "every certificate once"
        );
    }

    fn cert(student: &str, instructor: &str, v: CertVersion, t: CertType) -> Certificate {
        Certificate {
            cert_type: t,
            ..crate::fixtures::certificate("2022-03-15", student, instructor, v)
        }
    }

    fn students(pages: &[Value]) -> Vec<String> {
        testkit::column_of_pages(pages, "certificates", "student")
    }

    #[tokio::test]
    async fn l11_to_l13_walk_every_shard_as_one_list() {
        let table = testkit::table().await;
        let mut written = Vec::new();
        for n in 0..30 {
            let v = if n % 3 == 0 {
                CertVersion::V1
            } else {
                CertVersion::V2
            };
            let teacher = if n % 2 == 0 { "Tyler Walch" } else { "Ann Lee" };
            let c = cert(&format!("Student {n}"), teacher, v, CertType::Completion);
            table.put(&c, None).await.unwrap();
            written.push(c);
        }
        table
            .put(
                &cert(
                    "Other",
                    "Tyler Walch",
                    CertVersion::V2,
                    CertType::Attendance,
                ),
                None,
            )
            .await
            .unwrap();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let walk =
            async |query: Vec<(&str, &str)>| h.anyone().walk("/certificates", &query, "4").await;
        let count = |f: &dyn Fn(&Certificate) -> bool| written.iter().filter(|c| f(c)).count();
        let all = students(&walk(vec![("type", "completion")]).await);
        assert_eq!(all.len(), 30);
        let v1 = students(&walk(vec![("type", "Completion"), ("version", "1")]).await);
        assert_eq!(v1.len(), count(&|c| c.entity_version == CertVersion::V1));
        let tyler =
            students(&walk(vec![("type", "completion"), ("instructor", "Tyler Walch")]).await);
        assert_eq!(
            tyler.len(),
            count(&|c| c.instructor.as_str() == "Tyler Walch")
        );
        let tyler_v2 = students(
            &walk(vec![
                ("type", "completion"),
                ("instructor", "tyler walch"),
                ("version", "2"),
            ])
            .await,
        );
        assert_eq!(
            tyler_v2.len(),
            count(
                &|c| c.instructor.as_str() == "Tyler Walch" && c.entity_version == CertVersion::V2
            )
        );
        let mut distinct = all.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 30, "each once");
    }

    #[tokio::test]
    async fn bad_parameters_and_foreign_cursors_are_400s() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        for query in [
            vec![],
            vec![("type", "gold")],
            vec![("type", "completion"), ("version", "9")],
            vec![("type", "completion"), ("instructor", "  ")],
            vec![("type", "completion"), ("limit", "101")],
            vec![("type", "completion"), ("cursor", "forged")],
        ] {
            let (s, body) = h.get("/certificates", &query).await;
            assert_eq!(s, 400, "{query:?}: {body}");
        }
        // A cursor of one read is refused by another.
        for n in 0..3 {
            let c = cert(
                &format!("S{n}"),
                "Bo",
                CertVersion::V2,
                CertType::Attendance,
            );
            table.put(&c, None).await.unwrap();
        }
        testkit::assert_cursor_refused_by_another_read(
            &h,
            "/certificates",
            &[("type", "attendance"), ("limit", "1")],
            &[("type", "completion"), ("limit", "1")],
        )
        .await;
    }
}
