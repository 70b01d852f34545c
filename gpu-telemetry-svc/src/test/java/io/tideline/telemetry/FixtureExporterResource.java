package io.tideline.telemetry;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.tideline.telemetry.collect.dcgm.ExporterServer;
import java.util.Map;

/**
 * Quarkus test resource: two dcgm-exporter endpoints on a real HTTP server, serving the captured
 * 8 x H100 and L4 outputs, and the service pointed at them (1 s collection and clock intervals),
 * with the file inventory reading the 847-host topology. Tests switch an endpoint to failing
 * through {@link #exporter()}.
 */
public class FixtureExporterResource implements QuarkusTestResourceLifecycleManager {

  public static final String H100_PATH = "/ip-10-0-180-136/metrics";
  public static final String L4_PATH = "/i-030791dc5a37cd257/metrics";
  private static volatile ExporterServer server;

  public static ExporterServer exporter() {
    return server;
  }

  @Override
  public Map<String, String> start() {
    server = new ExporterServer()
        .serve(H100_PATH, Fixtures.text(Fixtures.H100_EKS))
        .serve(L4_PATH, Fixtures.text(Fixtures.L4_KOPS));
    return Map.of(
        "tideline.telemetry.source", "DCGM",
        "tideline.telemetry.dcgm.targets", "ip-10-0-180-136.ec2.internal=" + server.url(H100_PATH)
            + ",i-030791dc5a37cd257=" + server.url(L4_PATH),
        "tideline.telemetry.collect-interval", "1s",
        "tideline.telemetry.clock.interval", "1s",
        "tideline.telemetry.attribution.service-namespaces", "inference,nim-workload",
        "tideline.telemetry.inventory.source", "FILE",
        "tideline.telemetry.inventory.topology-file", "classpath:" + Fixtures.TOPOLOGY,
        "tideline.telemetry.inventory.gpu-file", "classpath:" + Fixtures.NODE_GPUS,
        "tideline.telemetry.inventory.interval", "2s");
  }

  @Override
  public void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
