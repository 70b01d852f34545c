package io.tideline.platform.security;

import io.smallrye.jwt.build.Jwt;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A throwaway signing key for bearer JWTs, standing in for an organisation's IdP where there is
 * none: the local secured stack ({@code ./tideline up --secure}, {@code ./tideline token}) and the
 * tests. Production verifies the IdP's own tokens with its key (ADR 0026); nothing here is used
 * by a service at run time.
 */
public final class DevTokens {

  /** The issuer of the local stack's tokens. */
  public static final String LOCAL_ISSUER = "https://tideline.local/dev-idp";

  static final String PRIVATE = "rest-jwt-private.pem";
  static final String PUBLIC = "rest-jwt-public.pem";

  private DevTokens() {}

  /**
   * A key pair's files and the issuer its tokens carry.
   *
   * @param privateKey PKCS#8 PEM, readable by its owner only
   * @param publicKey X.509 PEM, what the services verify with
   * @param issuer the tokens' {@code iss}
   */
  public record Keys(Path privateKey, Path publicKey, String issuer) {

    /** What a service needs to verify these tokens (TOKEN mode). */
    public Map<String, String> serviceConfig() {
      Map<String, String> c = new LinkedHashMap<>();
      c.put("tideline.rest.auth.mode", "TOKEN");
      c.put(RestGuard.KEY_LOCATION, publicKey.toUri().toString());
      c.put(RestGuard.ISSUER, issuer);
      return c;
    }

    /**
     * A signed token (RS256).
     *
     * @param subject the user id ({@code sub})
     * @param groups {@code tenant:<name>} memberships, the operators' group
     * @param issuedAt when it is issued
     * @param ttl how long it is valid
     */
    public String mint(String subject, Collection<String> groups, Instant issuedAt,
        Duration ttl) {
      return Jwt.issuer(issuer).subject(subject).groups(Set.copyOf(groups))
          .issuedAt(issuedAt).expiresAt(issuedAt.plus(ttl)).sign(readPrivate(privateKey));
    }
  }

  /** A fresh RSA key pair written to {@code dir} (created if missing). */
  public static Keys generate(Path dir, String issuer) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      KeyPair pair = g.generateKeyPair();
      Files.createDirectories(dir);
      Path priv = dir.resolve(PRIVATE);
      Files.deleteIfExists(priv);
      Files.createFile(priv);
      try {
        Files.setPosixFilePermissions(priv, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: the directory's own protection applies
      }
      Files.writeString(priv, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
      Path pub = dir.resolve(PUBLIC);
      Files.writeString(pub, pem("PUBLIC KEY", pair.getPublic().getEncoded()));
      return new Keys(priv, pub, issuer);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the token keys to " + dir, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no RSA key generator", e);
    }
  }

  /**
   * The key pair of one build's tests ({@code target/rest-token-keys} of the module): every
   * class loader of a Quarkus test (the profile's, the test's) finds the same one.
   */
  public static Keys forBuild() {
    return inOrNew(Path.of("target", "rest-token-keys"), LOCAL_ISSUER);
  }

  /** The key pair in {@code dir}, generated there first if there is none. */
  public static Keys inOrNew(Path dir, String issuer) {
    return Files.isReadable(dir.resolve(PRIVATE)) && Files.isReadable(dir.resolve(PUBLIC))
        ? existing(dir, issuer) : generate(dir, issuer);
  }

  /** The key pair {@link #generate} wrote to {@code dir}. */
  public static Keys existing(Path dir, String issuer) {
    Keys k = new Keys(dir.resolve(PRIVATE), dir.resolve(PUBLIC), issuer);
    if (!Files.isReadable(k.privateKey())) {
      throw new IllegalStateException("no token signing key at " + k.privateKey()
          + " (./tideline up --secure makes one)");
    }
    return k;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  private static PrivateKey readPrivate(Path file) {
    try {
      String b64 = Files.readString(file).replaceAll("-----[A-Z ]+-----", "")
          .replaceAll("\\s", "");
      return KeyFactory.getInstance("RSA")
          .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the token key " + file, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(file + " is no PKCS#8 RSA private key", e);
    }
  }
}
