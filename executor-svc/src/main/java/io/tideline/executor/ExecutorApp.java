package io.tideline.executor;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.executor.kube.KubeActions;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.jboss.logging.Logger;

/** Starts the executor replica in the Quarkus app when {@code tideline.executor.enabled}. */
@ApplicationScoped
public class ExecutorApp {

  private static final Logger LOG = Logger.getLogger(ExecutorApp.class);
  private static final Path SA_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  private ExecutorRuntime runtime;

  void start(@Observes StartupEvent ev, ExecutorConfig config, TidelineConfig tideline,
      IntakeConfig intake, AvroSerdes serdes, KubernetesClient client, MeterRegistry registry,
      @Identifier("default-kafka-broker") Map<String, Object> kafka) throws Exception {
    if (!config.enabled()) {
      LOG.info("executor disabled (tideline.executor.enabled=false): nothing is bound");
      return;
    }
    ExecutorSettings d = ExecutorSettings.defaults(tideline.cluster(), identity(config),
        config.leaseNamespace().orElseGet(ExecutorApp::ownNamespace));
    ExecutorSettings s = new ExecutorSettings(tideline.cluster(), tideline.service(),
        config.schedulerName(), config.gpuResource(), config.defaultWorkloadClass(),
        config.defaultTeam(), intake.bounds(), d.preemption(), config.stopMarginSeconds(),
        d.identity(), d.leaseNamespace(), config.leaseName().orElse(d.leaseName()),
        config.leaseDuration(), config.renewDeadline(), config.retryPeriod());
    Map<String, Object> extra = new HashMap<>(kafka);
    String bootstrap = String.valueOf(extra.remove("bootstrap.servers"));
    runtime = new ExecutorRuntime(new KubeActions(client, Clock.systemUTC(), s.identity()), s,
        bootstrap, serdes.valueSerdeConfig(), extra, registry, Clock.systemUTC(),
        config.resync());
    runtime.start();
    LOG.infof("executor %s campaigning for lease %s/%s (API server %s)", s.identity(),
        s.leaseNamespace(), s.leaseName(), client.getMasterUrl());
  }

  void stop(@Observes ShutdownEvent ev) {
    if (runtime != null) {
      runtime.close();
    }
  }

  private static String identity(ExecutorConfig config) throws Exception {
    if (config.identity().isPresent()) {
      return config.identity().get();
    }
    String host = System.getenv("HOSTNAME");
    return host != null && !host.isBlank() ? host : InetAddress.getLocalHost().getHostName();
  }

  private static String ownNamespace() {
    try {
      return Files.isReadable(SA_NAMESPACE) ? Files.readString(SA_NAMESPACE).strip() : "default";
    } catch (java.io.IOException e) {
      return "default";
    }
  }
}
