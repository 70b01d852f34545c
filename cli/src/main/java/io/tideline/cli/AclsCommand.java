package io.tideline.cli;

import io.tideline.platform.security.AclPlan;
import io.tideline.platform.security.KafkaAcls;
import io.tideline.platform.security.StrimziUsers;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tideline acls}: the Kafka ACLs generated from the topic catalogue (ADR 0023).
 * {@code print} shows them; {@code apply} creates them on the cluster the connection names, with
 * the provisioning identity's credentials ({@code --config}; ADR 0022), and is idempotent;
 * {@code strimzi} prints the same plan as Strimzi {@code KafkaUser}s ({@code deploy/k8s/kafka/users.yaml}).
 */
@Command(name = "acls", description = "The Kafka ACLs generated from the topic catalogue.",
    subcommands = {AclsCommand.Print.class, AclsCommand.Apply.class, AclsCommand.Strimzi.class})
final class AclsCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code tideline acls print}. */
  @Command(name = "print", description = "Print every generated ACL: principal, operation, resource, why.")
  static final class Print implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      AclPlan plan = AclPlan.fromCatalogue();
      spec.commandLine().getOut().print(plan.table());
      spec.commandLine().getOut().printf("%d ACLs from topics.csv%n", plan.rules().size());
      return 0;
    }
  }

  /** {@code tideline acls apply}. */
  @Command(name = "apply", description = "Create the generated ACLs on the cluster (needs an identity allowed to alter ACLs).")
  static final class Apply implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Override
    public Integer call() throws Exception {
      List<AclBinding> bindings = KafkaAcls.bindings(AclPlan.fromCatalogue());
      try (Admin admin = Admin.create(connection.clientProperties())) {
        admin.createAcls(bindings).all().get(60, TimeUnit.SECONDS);
      }
      spec.commandLine().getOut().printf("acls: %d applied from topics.csv%n", bindings.size());
      return 0;
    }
  }

  /** {@code tideline acls strimzi}. */
  @Command(name = "strimzi", description = "Print the generated ACLs as Strimzi KafkaUsers (deploy/k8s/kafka/users.yaml).")
  static final class Strimzi implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getOut().print(StrimziUsers.render(AclPlan.fromCatalogue()));
      // print does not flush an auto-flushing writer, and the text is larger than its buffer
      spec.commandLine().getOut().flush();
      return 0;
    }
  }
}
