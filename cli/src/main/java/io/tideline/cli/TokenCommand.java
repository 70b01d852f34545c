package io.tideline.cli;

import io.tideline.platform.security.DevTokens;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tideline token}: bearer JWTs for the LOCAL secured stack only (ADR 0026). Where a real
 * IdP exists, its tokens are used and the services verify them with its key; this stands in for
 * it on one machine: {@code keygen} makes the throwaway key pair {@code ./tideline up --secure}
 * gives the services, {@code mint} signs a token for a user with it.
 */
@Command(name = "token", description = "Dev bearer tokens for the local secured stack (not for production: use your IdP).",
    subcommands = {TokenCommand.Keygen.class, TokenCommand.Mint.class})
final class TokenCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Where the key pair is and the issuer its tokens name. */
  static final class KeyOptions {
    @Option(names = "--dir", required = true, description = "The key pair's directory.")
    Path dir;

    @Option(names = "--issuer", description = "The tokens' issuer (default: ${DEFAULT-VALUE}).")
    String issuer = DevTokens.LOCAL_ISSUER;
  }

  /** {@code tideline token keygen --dir D}. */
  @Command(name = "keygen", description = "Write a fresh RSA key pair (rest-jwt-private.pem, rest-jwt-public.pem) to --dir.")
  static final class Keygen implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin KeyOptions key;

    @Override
    public Integer call() {
      DevTokens.Keys keys = DevTokens.generate(key.dir, key.issuer);
      spec.commandLine().getOut().printf("token: key pair in %s (verify with %s, issuer %s)%n",
          key.dir, keys.publicKey(), key.issuer);
      return 0;
    }
  }

  /** {@code tideline token mint --dir D --sub alice --group tenant:search}. */
  @Command(name = "mint", description = "Print a signed bearer token for --sub with the key pair in --dir.")
  static final class Mint implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin KeyOptions key;

    @Option(names = "--sub", required = true, description = "The user id (JWT sub).")
    String subject;

    @Option(names = "--group", description = "A group: tenant:<name>, tideline-operators (repeatable).")
    List<String> groups = new ArrayList<>();

    @Option(names = "--ttl", description = "How long it is valid, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration ttl = Duration.ofHours(8);

    @Override
    public Integer call() {
      spec.commandLine().getOut().println(DevTokens.existing(key.dir, key.issuer)
          .mint(subject, groups, Instant.now(), ttl));
      return 0;
    }
  }
}
