package io.tideline.platform.security;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How the services' REST endpoints authenticate callers ({@code tideline.rest.auth.*}, ADR 0026).
 * The token's signature and issuer are checked by smallrye-jwt with the organisation's IdP key:
 * {@code mp.jwt.verify.publickey.location} (a PEM or JWKS file or URL) and
 * {@code mp.jwt.verify.issuer}; TOKEN mode refuses to start without them.
 */
@ConfigMapping(prefix = "tideline.rest.auth")
public interface RestAuthConfig {

  /** OPEN (the local open stack; a banner says so at start) or TOKEN (bearer JWTs). */
  @WithDefault("OPEN")
  RestAccess.Mode mode();

  /** The group (JWT {@code groups} claim) of Tideline's operators. */
  @WithDefault("tideline-operators")
  String operatorsGroup();

  /** A tenant's members carry the group {@code <prefix><tenant>}. */
  @WithDefault("tenant:")
  String tenantGroupPrefix();

  /** The rules in force. */
  default RestAccess access() {
    return new RestAccess(mode(), operatorsGroup(), tenantGroupPrefix());
  }
}
