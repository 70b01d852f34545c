package io.tideline.platform.security;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.security.Principal;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The REST adapter of {@link RestAccess} for every service (ADR 0026): smallrye-jwt verifies the
 * bearer token (signature with the IdP's key, issuer, expiry; a bad token is refused with 401
 * before any resource runs); this filter refuses a call without one in TOKEN mode (401), and
 * {@link #require} turns a rule's refusal into 403. Health and metrics ({@code /q/*}) are not
 * JAX-RS resources: they stay open.
 */
@ApplicationScoped
public class RestGuard {

  private static final Logger LOG = Logger.getLogger(RestGuard.class);

  /** The IdP key and issuer smallrye-jwt verifies with: TOKEN mode needs both. */
  static final String KEY_LOCATION = "mp.jwt.verify.publickey.location";
  static final String KEY_INLINE = "mp.jwt.verify.publickey";
  static final String ISSUER = "mp.jwt.verify.issuer";

  private final RestAccess access;
  private final String operatorsGroup;
  private final SecurityIdentity identity;

  /**
   * @param config the mode and groups in force
   * @param identity the current call's identity (a request-scoped proxy)
   */
  public RestGuard(RestAuthConfig config, SecurityIdentity identity) {
    this.access = config.access();
    this.operatorsGroup = config.operatorsGroup();
    this.identity = identity;
  }

  /** The rules in force. */
  public RestAccess access() {
    return access;
  }

  /** Says at start how REST callers are checked; TOKEN mode without a key does not start. */
  void onStart(@Observes StartupEvent event) {
    if (access.mode() == RestAccess.Mode.OPEN) {
      LOG.warn("#################################################################");
      LOG.warn("#  REST is OPEN (tideline.rest.auth.mode=OPEN): every endpoint  #");
      LOG.warn("#  takes anonymous calls. Set tideline.rest.auth.mode=TOKEN and  #");
      LOG.warn("#  mp.jwt.verify.publickey.location / mp.jwt.verify.issuer to    #");
      LOG.warn("#  require bearer JWTs (docs/adr/0026-rest-bearer-jwt.md).       #");
      LOG.warn("#################################################################");
      return;
    }
    var config = ConfigProvider.getConfig();
    boolean key = config.getOptionalValue(KEY_LOCATION, String.class).isPresent()
        || config.getOptionalValue(KEY_INLINE, String.class).isPresent();
    if (!key || config.getOptionalValue(ISSUER, String.class).isEmpty()) {
      throw new IllegalStateException("tideline.rest.auth.mode=TOKEN needs the IdP's public key ("
          + KEY_LOCATION + ", a PEM or JWKS file or URL) and the tokens' issuer (" + ISSUER
          + "); see docs/adr/0026-rest-bearer-jwt.md");
    }
    LOG.infof("REST requires bearer JWTs of issuer %s (operators: group %s)",
        config.getValue(ISSUER, String.class), operatorsGroup);
  }

  /** TOKEN mode: a call without a verified token goes no further (401). */
  @ServerRequestFilter
  public Optional<Response> authenticate(ContainerRequestContext request) {
    RestAccess.Verdict v = access.authenticated(caller());
    return v.allowed() ? Optional.empty() : Optional.of(refusal(v));
  }

  /** The caller the current call's verified token names, or null (no token). */
  public RestCaller caller() {
    if (identity.isAnonymous()) {
      return null;
    }
    Principal p = identity.getPrincipal();
    if (!(p instanceof JsonWebToken)) {
      return null;
    }
    JsonWebToken jwt = (JsonWebToken) p;
    String subject = jwt.getSubject();
    return subject == null || subject.isBlank() ? null
        : new RestCaller(subject, jwt.getGroups());
  }

  /**
   * Throws the refusal (401/403 with the reason) unless {@code rule} allows the caller.
   *
   * @param rule one of {@link RestAccess}'s rules, given the caller
   */
  public void require(BiFunction<RestAccess, RestCaller, RestAccess.Verdict> rule) {
    RestAccess.Verdict v = rule.apply(access, caller());
    if (!v.allowed()) {
      throw new WebApplicationException(v.reason(), refusal(v));
    }
  }

  private static Response refusal(RestAccess.Verdict v) {
    Response.ResponseBuilder r = Response
        .status(v.outcome() == RestAccess.Outcome.UNAUTHENTICATED ? 401 : 403)
        .type(MediaType.APPLICATION_JSON).entity(Map.of("error", v.reason()));
    if (v.outcome() == RestAccess.Outcome.UNAUTHENTICATED) {
      r.header("WWW-Authenticate", "Bearer realm=\"tideline\"");
    }
    return r.build();
  }
}
