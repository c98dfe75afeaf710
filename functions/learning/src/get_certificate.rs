//! L7: `GET /courses/{course}/certificates/{date}/{student}`: a student's certificate of a course
//! day, in whichever entity version it is written: ONE BatchGetItem of the v02 and the v01 key.
//! A v01 item under the student's v01 key counts only if it names this student (v01 keys lose
//! word boundaries: `Davids Purdy` must not get `David Spurdy`'s certificate). 404
//! `certificate_not_found`. Anyone may read it.

use crate::data as learning;
use crate::{params, views as view};
use api::declare::*;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-certificate",
    Access::Public,
    &Route::get(
        "/courses/{course}/certificates/{date}/{student}",
        "L7: a student's certificate of a course day, in either entity version",
        &[Pattern {
            id: "L7",
            route: "`GET /courses/{course}/certificates/{date}/{student}`",
            index: Index::Table,
            request: "BatchGetItem of the v02 and v01 keys; on a miss once more, strongly consistent",
            returns: "the certificate; 404 `certificate_not_found`",
            example: Example::anyone(
                "/courses/introtodynamodb/certificates/2022-03-15/David%20Spurdy",
            ),
        }],
    ),
);

api::refusals! {
    CertificateNotFound = Refusal::new(404, "certificate_not_found", "no certificate has that id, or it is another's"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<view::Certificate>("the certificate")
.refusals(Refused::ALL).worst_read_units(3.0)
        .worst(|| {
                use api::function::{Worst, leak, path_segment, widest_text};
                let name = path_segment(&widest_text(keys::MAX_TEXT_LEN));
                let target = format!("/courses/{name}/certificates/2022-03-16/{name}");
                Worst::new(
                    "a certificate no one holds, of the longest names: both keys read twice, the second time strongly consistent",
                    Example::anyone(leak(target)),
                )
                .answered(404)
            }),
];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let course = params::path_course(&req)?;
    let date = params::path_date(&req, "date")?;
    let student = params::path_name(&req, "student")?;
    let found = learning::certificate(&deps.table, &course, date, &student).await?;
    api::found(
        found,
        view::certificate,
        Refused::CertificateNotFound,
        || format!("{student} holds no certificate of {course} on {date}."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::learning::CertVersion;
    use testkit::Harness;

    fn cert(student: &str, version: CertVersion) -> model::learning::Certificate {
        crate::fixtures::certificate("2022-03-15", student, "Tyler Walch", version)
    }

    #[tokio::test]
    async fn finds_either_version_and_never_another_students_v01() {
        let table = testkit::table().await;
        table
            .put(&cert("David Spurdy", CertVersion::V1), None)
            .await
            .unwrap();
        table
            .put(&cert("Ann Lee", CertVersion::V2), None)
            .await
            .unwrap();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        for (student, status, version) in [
            ("David%20Spurdy", 200, Some(1u64)),
            ("david%20spurdy", 200, Some(1)),
            ("Ann%20Lee", 200, Some(2)),
            ("Davids%20Purdy", 404, None),
            ("Nobody", 404, None),
        ] {
            table.meter().reset();
            let path = format!("/courses/Intro%20to%20DynamoDB/certificates/2022-03-15/{student}");
            let (s, body) = h.get(&path, &[]).await;
            assert_eq!(s, status, "{student}: {body}");
            assert_eq!(body["version"].as_u64(), version, "{student}");
            if status == 404 {
                assert_eq!(body["code"], "certificate_not_found");
            }
            // A hit is one request; a miss asks again, strongly consistent (a migration may
            // have moved the certificate between the two reads of the first).
            let requests = table.meter().requests();
            let expected = if status == 404 { 2 } else { 1 };
            assert_eq!(requests.len(), expected, "{student}: requests");
            assert!(requests.iter().all(|r| r.operation == "BatchGetItem"));
        }
        let (s, _) = h.get("/courses/x/certificates/2022-02-30/Ann", &[]).await;
        assert_eq!(s, 400);
    }
}
