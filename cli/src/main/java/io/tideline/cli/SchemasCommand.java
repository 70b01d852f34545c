package io.tideline.cli;

import io.tideline.platform.health.RegistryIdentity;
import io.tideline.platform.serde.ContractSubjects;
import io.tideline.platform.serde.RegistrarCredential;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tideline schemas register}: registers the value contract of every catalogued topic
 * ({@code <topic>-value}, self-contained schemas from the schemas jar) through the registry's
 * Confluent-compatible API, before any service starts (ADR 0013). Idempotent: a subject whose
 * latest version already is the contract keeps its id. On a secured registry it is the only
 * writer (ADR 0027): it signs its writes with the registrar key ({@code --registrar-key}, env
 * {@code TIDELINE_REGISTRY_REGISTRAR_KEY}) that {@code tideline schemas keygen} made.
 */
@Command(name = "schemas", description = "Manage the contracts in the schema registry.",
    subcommands = {SchemasCommand.Register.class, SchemasCommand.Keygen.class})
final class SchemasCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code tideline schemas register}. */
  @Command(name = "register",
      description = "Register every topic's value contract (<topic>-value) in the registry.")
  static final class Register implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--registrar-key",
        description = "PKCS#8 PEM private key of the registrar (env TIDELINE_REGISTRY_REGISTRAR_KEY);"
            + " without it the writes are anonymous, which only an open registry accepts")
    Path registrarKey;

    @Option(names = "--token-ttl", defaultValue = "PT5M",
        description = "How long the registrar's signed token is valid (default ${DEFAULT-VALUE})")
    Duration tokenTtl;

    @Override
    public Integer call() throws Exception {
      var out = spec.commandLine().getOut();
      String registry = connection.registryUrl();
      Optional<String> authorization = key().map(k -> RegistrarCredential.load(k, "registrar")
          .authorization(Instant.now(), tokenTtl));
      List<ContractSubjects.Registered> done =
          ContractSubjects.register(registry, ContractSubjects.all(), authorization);
      for (ContractSubjects.Registered r : done) {
        out.printf("%-34s id %d%n", r.subject(), r.id());
      }
      String identity = RegistryIdentity.getOrCreate(registry, authorization);
      out.printf("registered %d subjects at %s (registry identity %s)%n", done.size(), registry,
          identity);
      return 0;
    }

    private Optional<Path> key() {
      String env = System.getenv("TIDELINE_REGISTRY_REGISTRAR_KEY");
      return Optional.ofNullable(registrarKey)
          .or(() -> env == null || env.isBlank() ? Optional.empty() : Optional.of(Path.of(env)));
    }
  }

  /** {@code tideline schemas keygen --dir D}: the registrar's key pair (ADR 0027). */
  @Command(name = "keygen",
      description = "Write a new registrar key pair: DIR/registrar.key (PKCS#8 PEM, for `schemas"
          + " register`), DIR/registrar.pub (the registry's quarkus.oidc.public-key) and"
          + " DIR/registry.properties (every setting the registry needs to accept only it).")
  static final class Keygen implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--dir", required = true, description = "Folder to write the pair into")
    Path dir;

    @Override
    public Integer call() throws Exception {
      KeyPair pair = RegistrarCredential.generate();
      RegistrarCredential.writePair(pair, dir);
      StringBuilder props = new StringBuilder("# Apicurio Registry 2.6 settings: the registrar is"
          + " its only writer (ADR 0027); pass each line as -Dkey=value\n");
      RegistrarCredential.registryProperties(RegistrarCredential.publicKey(pair))
          .forEach((k, v) -> props.append(k).append('=').append(v).append('\n'));
      Files.writeString(dir.resolve("registry.properties"), props);
      spec.commandLine().getOut().printf("registrar key pair written to %s%n", dir);
      return 0;
    }
  }
}
