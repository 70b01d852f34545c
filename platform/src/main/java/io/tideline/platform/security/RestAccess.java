package io.tideline.platform.security;

/**
 * Who may call which REST operation (issue #18 point 4, ADR 0026), decided here only: the
 * services' resources ask, never decide. Pure: no clock, no I/O.
 *
 * <ul>
 *   <li>{@code POST /quota-requests}: a user asks only for themselves (the body's {@code userId}
 *       is the caller's subject); operators do not ask on someone's behalf either, so nobody can
 *       send a notice to another user through this endpoint.
 *   <li>{@code PUT /directory/{userId}} (where a user's notices go, their webhook): that user, or
 *       an operator.
 *   <li>A tenant's quota and bill ({@code GET /quota/tenants/{t}}, {@code /quota/billing/{t}/…}):
 *       the tenant's members (group {@code tenant:<t>}) and operators.
 *   <li>Fleet-wide views (the quota tree, job verdicts, preemption decisions and view, forecasts):
 *       operators only. They name every tenant's jobs, users and capacity.
 * </ul>
 *
 * <p>In {@link Mode#OPEN} (the local open stack) everything is allowed, as on the open broker.
 */
public final class RestAccess {

  /** How REST callers are authenticated ({@code tideline.rest.auth.mode}). */
  public enum Mode {
    /** No authentication: every endpoint is open (the local default; it says so at start). */
    OPEN,
    /** A verified bearer JWT on every REST call but health and metrics. */
    TOKEN
  }

  /** What a rule says. */
  public enum Outcome {
    ALLOWED,
    /** No (valid) token: 401. */
    UNAUTHENTICATED,
    /** A valid token of a caller who may not do this: 403. */
    FORBIDDEN
  }

  /**
   * A rule's answer.
   *
   * @param outcome allowed, unauthenticated or forbidden
   * @param reason why, for the caller (empty when allowed)
   */
  public record Verdict(Outcome outcome, String reason) {
    static final Verdict ALLOW = new Verdict(Outcome.ALLOWED, "");

    public boolean allowed() {
      return outcome == Outcome.ALLOWED;
    }
  }

  private final Mode mode;
  private final String operatorsGroup;
  private final String tenantGroupPrefix;

  /**
   * @param mode OPEN or TOKEN
   * @param operatorsGroup the group of Tideline's operators
   * @param tenantGroupPrefix a tenant's members carry the group {@code prefix + tenant}
   */
  public RestAccess(Mode mode, String operatorsGroup, String tenantGroupPrefix) {
    this.mode = mode;
    this.operatorsGroup = operatorsGroup;
    this.tenantGroupPrefix = tenantGroupPrefix;
  }

  public Mode mode() {
    return mode;
  }

  /** May {@code caller} (null: no token) ask for more quota on behalf of {@code userId}? */
  public Verdict requestQuota(RestCaller caller, String userId) {
    if (mode == Mode.OPEN) {
      return Verdict.ALLOW;
    }
    if (caller == null) {
      return unauthenticated();
    }
    return caller.subject().equals(userId) ? Verdict.ALLOW
        : forbidden(caller.subject() + " may request quota only for themselves, not for "
            + userId);
  }

  /** May {@code caller} set where {@code userId}'s notices go? */
  public Verdict writeDirectory(RestCaller caller, String userId) {
    if (mode == Mode.OPEN) {
      return Verdict.ALLOW;
    }
    if (caller == null) {
      return unauthenticated();
    }
    return caller.subject().equals(userId) || isOperator(caller) ? Verdict.ALLOW
        : forbidden(caller.subject() + " may change only their own directory entry, not "
            + userId + "'s (or be in " + operatorsGroup + ")");
  }

  /** May {@code caller} read {@code tenant}'s quota and bill? */
  public Verdict readTenant(RestCaller caller, String tenant) {
    if (mode == Mode.OPEN) {
      return Verdict.ALLOW;
    }
    if (caller == null) {
      return unauthenticated();
    }
    return isOperator(caller) || caller.groups().contains(tenantGroupPrefix + tenant)
        ? Verdict.ALLOW
        : forbidden(caller.subject() + " is not a member of tenant " + tenant + " (group "
            + tenantGroupPrefix + tenant + ") nor in " + operatorsGroup);
  }

  /** May {@code caller} read a fleet-wide view, {@code what} (for the reason)? */
  public Verdict readFleet(RestCaller caller, String what) {
    if (mode == Mode.OPEN) {
      return Verdict.ALLOW;
    }
    if (caller == null) {
      return unauthenticated();
    }
    return isOperator(caller) ? Verdict.ALLOW
        : forbidden(what + " is for operators (group " + operatorsGroup + "); "
            + caller.subject() + " is not one");
  }

  /** Any call at all, before a rule: in TOKEN mode a caller must be known. */
  public Verdict authenticated(RestCaller caller) {
    return mode == Mode.OPEN || caller != null ? Verdict.ALLOW : unauthenticated();
  }

  private boolean isOperator(RestCaller caller) {
    return caller.groups().contains(operatorsGroup);
  }

  private static Verdict unauthenticated() {
    return new Verdict(Outcome.UNAUTHENTICATED,
        "authentication required: send Authorization: Bearer <JWT>");
  }

  private static Verdict forbidden(String reason) {
    return new Verdict(Outcome.FORBIDDEN, reason);
  }
}
