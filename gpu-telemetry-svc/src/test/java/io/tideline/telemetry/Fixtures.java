package io.tideline.telemetry;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Reads the captured fixtures under {@code src/test/resources/fixtures} (see their README). */
public final class Fixtures {

  public static final String L4_KOPS = "fixtures/dcgm/l4-kops-i-030791dc5a37cd257.prom";
  public static final String H100_EKS = "fixtures/dcgm/h100x8-eks-ip-10-0-180-136.prom";
  public static final String SMI = "fixtures/smi/nvidia-smi-query.csv";
  public static final String TOPOLOGY = "fixtures/inventory/network-topology-847-hosts.csv";
  public static final String NODE_GPUS = "fixtures/inventory/node-gpus.csv";
  public static final String NODES_JSON = "fixtures/k8s/nodes.json";

  private Fixtures() {}

  public static String text(String resource) {
    try (InputStream in = Fixtures.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing fixture " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
