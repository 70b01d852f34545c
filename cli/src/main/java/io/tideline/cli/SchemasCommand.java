package io.tideline.cli;

import io.tideline.platform.health.RegistryIdentity;
import io.tideline.platform.serde.ContractSubjects;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tideline schemas register}: registers the value contract of every catalogued topic
 * ({@code <topic>-value}, self-contained schemas from the schemas jar) through the registry's
 * Confluent-compatible API, before any service starts (ADR 0013). Idempotent: a subject whose
 * latest version already is the contract keeps its id.
 */
@Command(name = "schemas", description = "Manage the contracts in the schema registry.",
    subcommands = {SchemasCommand.Register.class})
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

    @Override
    public Integer call() throws Exception {
      var out = spec.commandLine().getOut();
      String registry = connection.registryUrl();
      List<ContractSubjects.Registered> done =
          ContractSubjects.register(registry, ContractSubjects.all());
      for (ContractSubjects.Registered r : done) {
        out.printf("%-34s id %d%n", r.subject(), r.id());
      }
      String identity = RegistryIdentity.getOrCreate(registry);
      out.printf("registered %d subjects at %s (registry identity %s)%n", done.size(), registry,
          identity);
      return 0;
    }
  }
}
