package io.tideline.platform.serde;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one credential that may write the schema registry (ADR 0027): an RSA key pair whose public
 * half the registry is started with ({@code quarkus.oidc.public-key}: the registry's own OIDC
 * extension verifies bearer tokens locally, no OIDC server) and whose private half only
 * {@code tideline schemas register} holds. The registrar signs itself a short-lived token carrying
 * the registry's developer role; anonymous clients (every service) may only read.
 *
 * <p>This is not a token service: nothing is served, nothing is issued to anyone else. Whoever
 * holds the private key is the registrar, as whoever holds a SCRAM password is that principal.
 */
public final class RegistrarCredential {

  /** The issuer the registry is told to accept ({@code quarkus.oidc.token.issuer}). */
  public static final String ISSUER = "tideline-registrar";
  /** The registry role the registrar holds: create and update artifacts, never admin. */
  public static final String ROLE = "sr-developer";
  /** The key size of a generated pair. */
  public static final int KEY_BITS = 2048;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();
  private static final String BEGIN = "-----BEGIN PRIVATE KEY-----";
  private static final String END = "-----END PRIVATE KEY-----";

  private final PrivateKey key;
  private final String subject;

  private RegistrarCredential(PrivateKey key, String subject) {
    this.key = key;
    this.subject = subject;
  }

  /** A new key pair (the private half for the registrar, the public half for the registry). */
  public static KeyPair generate() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(KEY_BITS);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no RSA key pair generator: " + e, e);
    }
  }

  /** The credential of a private key in memory, for {@code subject} (who the audit log names). */
  public static RegistrarCredential of(PrivateKey key, String subject) {
    return new RegistrarCredential(key, subject);
  }

  /** The credential in a PKCS#8 PEM file (what {@link #writePair} writes). */
  public static RegistrarCredential load(Path privateKeyPem, String subject) {
    try {
      String pem = Files.readString(privateKeyPem, StandardCharsets.US_ASCII);
      String body = pem.replace(BEGIN, "").replace(END, "").replaceAll("\\s", "");
      PrivateKey key = KeyFactory.getInstance("RSA")
          .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
      return new RegistrarCredential(key, subject);
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read the registrar key " + privateKeyPem
          + " (a PKCS#8 PEM RSA private key, as `tideline schemas keygen` writes): " + e, e);
    }
  }

  /**
   * Writes {@code registrar.key} (PKCS#8 PEM, owner-only) and {@code registrar.pub} (the public
   * key as the registry's {@code quarkus.oidc.public-key} wants it: base64 X.509) into {@code dir}.
   */
  public static void writePair(KeyPair pair, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path key = dir.resolve("registrar.key");
    String pem = BEGIN + "\n" + Base64.getMimeEncoder(64, new byte[] {'\n'})
        .encodeToString(pair.getPrivate().getEncoded()) + "\n" + END + "\n";
    Files.writeString(key, pem, StandardCharsets.US_ASCII);
    try {
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the folder's permissions are what protects it
    }
    Files.writeString(dir.resolve("registrar.pub"), publicKey(pair) + "\n",
        StandardCharsets.US_ASCII);
  }

  /** The public half as the registry takes it ({@code quarkus.oidc.public-key}). */
  public static String publicKey(KeyPair pair) {
    return Base64.getEncoder().encodeToString(pair.getPublic().getEncoded());
  }

  /** The public half of this credential's key (derived from the private CRT key). */
  public String publicKey() {
    try {
      RSAPrivateCrtKey crt = (RSAPrivateCrtKey) key;
      return Base64.getEncoder().encodeToString(KeyFactory.getInstance("RSA")
          .generatePublic(new RSAPublicKeySpec(crt.getModulus(), crt.getPublicExponent()))
          .getEncoded());
    } catch (GeneralSecurityException | ClassCastException e) {
      throw new IllegalStateException("cannot derive the public key: " + e, e);
    }
  }

  /**
   * The system properties that make an Apicurio Registry 2.6 accept this credential's tokens as
   * its only writer: authentication on, anonymous reads on, role-based authorization from the
   * token, tokens verified locally against {@code publicKey} (no OIDC server: the auth server URL
   * is emptied), artifact-version deletion off, and the global compatibility rule BACKWARD.
   */
  public static Map<String, String> registryProperties(String publicKey) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("registry.auth.enabled", "true");
    p.put("registry.auth.anonymous-read-access.enabled", "true");
    p.put("registry.auth.role-based-authorization", "true");
    p.put("registry.auth.role-source", "token");
    p.put("quarkus.oidc.auth-server-url", "");
    p.put("quarkus.oidc.public-key", publicKey);
    p.put("quarkus.oidc.token.issuer", ISSUER);
    p.put("registry.rest.artifact.deletion.enabled", "false");
    p.put("registry.rules.global.compatibility", "BACKWARD");
    return p;
  }

  /**
   * A bearer token for the registry, valid {@code ttl} from {@code now}: RS256, issuer
   * {@link #ISSUER}, the {@link #ROLE} in {@code groups} (the claim Quarkus reads roles from).
   */
  public String bearerToken(Instant now, Duration ttl) {
    Map<String, Object> header = Map.of("alg", "RS256", "typ", "JWT");
    Map<String, Object> claims = new LinkedHashMap<>();
    claims.put("iss", ISSUER);
    claims.put("sub", subject);
    claims.put("preferred_username", subject);
    claims.put("groups", List.of(ROLE));
    claims.put("iat", now.getEpochSecond());
    claims.put("exp", now.plus(ttl).getEpochSecond());
    try {
      String signed = URL.encodeToString(JSON.writeValueAsBytes(header)) + "."
          + URL.encodeToString(JSON.writeValueAsBytes(claims));
      Signature rsa = Signature.getInstance("SHA256withRSA");
      rsa.initSign(key);
      rsa.update(signed.getBytes(StandardCharsets.US_ASCII));
      return signed + "." + URL.encodeToString(rsa.sign());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign the registrar token: " + e, e);
    }
  }

  /** The {@code Authorization} header value for {@link #bearerToken}. */
  public String authorization(Instant now, Duration ttl) {
    return "Bearer " + bearerToken(now, ttl);
  }
}
