//! Customers (C2): a customer created or updated, its account rep checked in the same
//! transaction.

use keys::{
    Id, Timestamp,
    commerce::{self as k},
};
use model::{Entity, commerce::Customer, s};

use store::{Condition, Read, StoreError, Table, Update};

// ---------------------------------------------------------------------------------------------
// C2: create or update a customer

/// What a customer PUT does to its account rep.
#[derive(Debug, Clone, PartialEq)]
pub enum RepChange {
    /// Leave it as it is (the body did not name one).
    Keep,
    /// Assign this employee (who must exist).
    Assign(Id),
    /// The customer has no rep from now on.
    Clear,
}

/// What a customer PUT did.
#[derive(Debug, Clone, PartialEq)]
pub enum CustomerPut {
    /// The customer as stored, and whether this call created it.
    Stored(Customer, bool),
    /// The account rep named is not an employee; nothing written.
    NoSuchRep,
}

/// The largest customer record there can be: the longest ids, name and email of the widest
/// characters, its derived totals, and the marks of [`MARKED_LANES`] stream shards
/// (`store::aggregate`). Pages of a rep's customers are read within the read budget at this size;
/// a test builds the largest and measures it.
pub const LARGEST_CUSTOMER_BYTES: u32 = 4 * 1024;

/// The stream shards whose marks a customer is assumed to hold at most: its totals are written
/// from its order summaries, in its own partition, whose stream shard is one at a time and rolls
/// over every few hours, so about 7 shards mark it within a mark's 25 hours. A customer marked
/// by more makes a page of its rep's customers read past its budget by what they add.
pub const MARKED_LANES: usize = 24;

/// The largest `RepSales` there can be (a 64-character rep, the largest totals, its ranking key;
/// its marks are kept aside): what O14's pages are read within the read budget at.
pub const LARGEST_REP_SALES_BYTES: u32 = 512;

/// Creates the customer or updates its name and email, keeping the derived attributes, and
/// sets or clears its account rep (and with it the customer's place in the rep's GSI1
/// partition, O9). Assigning a rep checks the employee in the same transaction, in `hr`: HR's
/// table (the same table with `TableLayout` one-table; a transaction spans tables).
pub async fn put_customer(
    table: &Table,
    hr: &Table,
    customer: &Id,
    name: &str,
    email: &str,
    rep: RepChange,
    now: Timestamp,
) -> Result<CustomerPut, StoreError> {
    let now = s(now.to_string());
    let update = Update::new()
        .set(Customer::CUSTOMER_ID, s(customer.as_str()))
        .set(Customer::NAME, s(name))
        .set(Customer::EMAIL, s(email))
        .set(Customer::UPDATED_AT, now.clone())
        .set_if_absent(Customer::CREATED_AT, now);
    let rep = match rep {
        RepChange::Keep => {
            let (c, created) = table.upsert(&k::customer(customer), update).await?;
            return Ok(CustomerPut::Stored(c, created));
        }
        RepChange::Clear => {
            let update = update
                .remove(Customer::ACCOUNT_REP_ID)
                .set_or_remove_key::<keys::Gsi1>(None);
            let (c, created) = table.upsert(&k::customer(customer), update).await?;
            return Ok(CustomerPut::Stored(c, created));
        }
        RepChange::Assign(rep) => rep,
    };
    let update = update
        .set(Customer::ACCOUNT_REP_ID, s(rep.as_str()))
        .set_key(&k::rep_customer_index(&rep, customer))
        .set(model::attr::TYPE, s(Customer::TYPE))
        .add(model::attr::REVISION, 1);
    // A transaction returns no item: created or not is told by the condition of a first try
    // (the customer is absent), and the customer is read back for the answer.
    for create in [true, false] {
        let mut tx = table.transaction();
        let employee = tx.check_in(hr, &keys::hr::employee(&rep), Condition::Exists)?;
        let write = tx.update(
            &k::customer(customer),
            &update,
            Some(if create {
                Condition::Absent
            } else {
                Condition::Exists
            }),
        )?;
        match tx.send().await {
            Ok(()) => {
                let stored = table
                    .get(&k::customer(customer), Read::Strong)
                    .await?
                    .ok_or_else(|| StoreError::Corrupt("customer vanished".into()))?;
                return Ok(CustomerPut::Stored(stored, create));
            }
            Err(e) if employee.failed(&e) => return Ok(CustomerPut::NoSuchRep),
            Err(e) if write.failed(&e) => continue,
            Err(e) => return Err(e),
        }
    }
    // Created between the two tries' conditions and deleted again: customers are never deleted.
    Err(StoreError::Corrupt(
        "customer neither absent nor present".into(),
    ))
}

/// Whether the customer exists: one (eventually consistent) GetItem of its key only.
pub async fn customer_exists(table: &Table, customer: &Id) -> Result<bool, StoreError> {
    table.exists(&k::customer(customer)).await
}
