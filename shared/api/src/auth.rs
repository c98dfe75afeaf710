//! Who may call a route, checked once, here, from the claims API Gateway's JWT authorizer passes
//! (`requestContext.authorizer.jwt.claims`).
//!
//! API Gateway has already checked the token (signature, issuer, audience, expiry, scopes) before
//! a function runs; what it cannot check is whether the caller may touch *this* customer, cart
//! or review. Each function declares its [`Access`]; [`authorize`] enforces it before the handler
//! runs. The caller's identity is the token's `sub`: in commerce it is the `customerId` (and a
//! customer's cart is `/carts/{customerId}`), in reviews the `username`. Staff are the members of
//! the [`STAFF_GROUP`] group (`cognito:groups`, which API Gateway flattens to the text `[staff]`).

use keys::Id;
use lambda_http::{Request, RequestExt, request::RequestContext};

use crate::{ApiError, Common, Refusal};

/// The claim that carries a caller's groups (Cognito's; other OIDC issuers can be configured to
/// send it too).
pub const GROUPS_CLAIM: &str = "cognito:groups";
/// The group whose members are staff.
pub const STAFF_GROUP: &str = "staff";

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, signed in or not: the route has no authorizer (`Auth: {Authorizer: NONE}`).
    Public,
    /// A signed-in caller whose `sub` is the path parameter `param`. Anyone else gets the 404
    /// `not_found` (as if the item did not exist: a stranger learns nothing) and nothing is read
    /// or written.
    Owner {
        param: &'static str,
        not_found: Refusal,
    },
    /// As [`Access::Owner`], and staff too (moderation).
    OwnerOrStaff {
        param: &'static str,
        not_found: Refusal,
    },
    /// Any signed-in caller; the handler checks that what it read is theirs
    /// ([`Caller::may_see`]), because the path does not say whose it is (an order by its id).
    SignedIn,
    /// Staff only: anyone else gets 403 `forbidden`.
    Staff,
}

impl Access {
    /// [`Access::Owner`]: a signed-in caller whose `sub` is the path parameter `param`.
    pub const fn owner(param: &'static str, not_found: Refusal) -> Access {
        Access::Owner { param, not_found }
    }

    /// [`Access::OwnerOrStaff`]: the owner, or staff.
    pub const fn owner_or_staff(param: &'static str, not_found: Refusal) -> Access {
        Access::OwnerOrStaff { param, not_found }
    }
}

impl Access {
    /// Whether the route needs a token (an authorizer in the template).
    pub fn signed_in(self) -> bool {
        self != Access::Public
    }
}

/// The signed-in caller of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The token's `sub`.
    pub sub: String,
    pub staff: bool,
}

impl Caller {
    /// Whether the caller may see an item that belongs to `owner`: it is theirs, or they are staff.
    pub fn may_see(&self, owner: &Id) -> bool {
        self.staff || self.sub == owner.as_str()
    }
}

/// The caller, from the claims API Gateway passed; `None` without a token (a public route).
pub fn caller(req: &Request) -> Option<Caller> {
    let RequestContext::ApiGatewayV2(ctx) = req.request_context_ref()? else {
        return None;
    };
    let claims = &ctx.authorizer.as_ref()?.jwt.as_ref()?.claims;
    let sub = claims.get("sub").filter(|s| !s.is_empty())?.clone();
    let staff = claims
        .get(GROUPS_CLAIM)
        .is_some_and(|groups| flattened_list(groups).contains(&STAFF_GROUP));
    Some(Caller { sub, staff })
}

/// A list claim exactly as API Gateway passes it: `[a b c]`, one bracket each side and the items
/// between single spaces; a claim that was one string comes as that string. Nothing else is
/// trimmed or split: a group named `[staff]` (`[[staff]]` in the list), `"staff"` or `sales,staff`
/// is not `staff`.
fn flattened_list(value: &str) -> Vec<&str> {
    match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        Some(items) => items.split(' ').filter(|g| !g.is_empty()).collect(),
        None if value.is_empty() => Vec::new(),
        None => vec![value],
    }
}

/// The caller of a signed-in route; 401 without one (the authorizer is missing from the route).
pub fn signed_in_caller(req: &Request) -> Result<Caller, ApiError> {
    caller(req)
        .ok_or_else(|| Common::Unauthorized.because("Sign in: this route needs a bearer token."))
}

/// Enforces `access` on `req`, before the handler runs. Returns the caller, if signed in.
pub fn authorize(access: Access, req: &Request) -> Result<Option<Caller>, ApiError> {
    let (param, not_found, staff_too) = match access {
        Access::Public => return Ok(caller(req)),
        Access::SignedIn => return signed_in_caller(req).map(Some),
        Access::Staff => {
            let caller = signed_in_caller(req)?;
            if !caller.staff {
                return Err(Common::Forbidden.because("Only staff may do this."));
            }
            return Ok(Some(caller));
        }
        Access::Owner { param, not_found } => (param, not_found, false),
        Access::OwnerOrStaff { param, not_found } => (param, not_found, true),
    };
    let caller = signed_in_caller(req)?;
    // A malformed id is a 400 whoever asks: it says nothing about what exists.
    let owner = crate::path_id(req, param)?;
    if caller.sub == owner.as_str() || (staff_too && caller.staff) {
        Ok(Some(caller))
    } else {
        Err(not_yours(not_found, param, &owner))
    }
}

/// The 404 a caller gets for another's item: the same code as for an item that does not exist.
pub fn not_yours(not_found: impl Into<Refusal>, what: &str, id: &Id) -> ApiError {
    not_found
        .into()
        .because(format!("There is no {what} {id} that you can see."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_as_api_gateway_flattens_them() {
        let groups = |s| flattened_list(s);
        assert_eq!(groups("[staff]"), ["staff"]);
        assert_eq!(groups("[admins staff]"), ["admins", "staff"]);
        assert_eq!(groups("staff"), ["staff"], "a claim that was one string");
        assert_eq!(groups("[]"), Vec::<&str>::new());
        assert_eq!(groups(""), Vec::<&str>::new());
        // Read exactly (issue 51): these are other groups, never staff.
        for other in [
            "[staffing]",
            "[[staff]]",
            r#"["staff","x"]"#,
            r#""staff""#,
            "[[staff",
            "staff]]]",
            "sales,staff",
            "[sales,staff]",
        ] {
            assert!(
                !groups(other).contains(&"staff"),
                "{other}: {:?}",
                groups(other)
            );
        }
    }
}
