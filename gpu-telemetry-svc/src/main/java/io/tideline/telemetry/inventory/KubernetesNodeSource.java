package io.tideline.telemetry.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The production inventory: {@code GET /api/v1/nodes} from the Kubernetes API server with the
 * pod's service-account token (re-read each call: projected tokens rotate), trusting the
 * service-account CA when it is mounted.
 *
 * <ul>
 *   <li>GPU count: {@code status.capacity["nvidia.com/gpu"]}; model: label
 *       {@code nvidia.com/gpu.product} (GPU feature discovery; dashes as written); memory per GPU:
 *       label {@code nvidia.com/gpu.memory} (MiB). Missing figures fall back to the configured
 *       defaults.
 *   <li>Switch path: the first present label of each configured list (e.g. a site's
 *       {@code network.tideline.io/asw}, or {@code topology.kubernetes.io/zone}); absent →
 *       {@code unknown}.
 *   <li>DRAINED: {@code spec.unschedulable} (kubectl cordon/drain), the
 *       {@code node.kubernetes.io/unschedulable} taint, a Ready condition that is not True, or the
 *       configured drain list.
 * </ul>
 */
public final class KubernetesNodeSource implements InventorySource {

  /** Label keys that place a node in the network. */
  public record TopologyLabels(List<String> access, List<String> aggregation, List<String> core,
      String nvlinkIslands) {}

  static final String UNKNOWN = "unknown";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI nodesUri;
  private final Path tokenFile;
  private final TopologyLabels topology;
  private final FileInventorySource.GpuDefaults defaults;
  private final Set<String> drainList;
  private final HttpClient http;

  public KubernetesNodeSource(String apiUrl, String labelSelector, Path tokenFile, Path caFile,
      TopologyLabels topology, FileInventorySource.GpuDefaults defaults, List<String> drainList) {
    String base = apiUrl.endsWith("/") ? apiUrl.substring(0, apiUrl.length() - 1) : apiUrl;
    this.nodesUri = URI.create(base + "/api/v1/nodes" + (labelSelector == null || labelSelector.isBlank()
        ? "" : "?labelSelector=" + URLEncoder.encode(labelSelector, StandardCharsets.UTF_8)));
    this.tokenFile = tokenFile;
    this.topology = topology;
    this.defaults = defaults;
    this.drainList = Set.copyOf(drainList);
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
    if (caFile != null && Files.isReadable(caFile)) {
      b.sslContext(trusting(caFile));
    }
    this.http = b.build();
  }

  @Override
  public SortedMap<String, NodeState> snapshot() throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(nodesUri).timeout(Duration.ofSeconds(30))
        .header("Accept", "application/json").GET();
    if (tokenFile != null && Files.isReadable(tokenFile)) {
      req.header("Authorization", "Bearer " + Files.readString(tokenFile).strip());
    }
    HttpResponse<InputStream> response = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      if (response.statusCode() != 200) {
        throw new IOException("GET " + nodesUri + " answered " + response.statusCode() + ": "
            + new String(body.readNBytes(512), StandardCharsets.UTF_8));
      }
      return parse(JSON.readTree(body));
    }
  }

  /** Nodes of a NodeList document. */
  public SortedMap<String, NodeState> parse(JsonNode nodeList) throws IOException {
    if (!"NodeList".equals(nodeList.path("kind").asText())) {
      throw new IOException("expected a NodeList, got kind '" + nodeList.path("kind").asText() + "'");
    }
    SortedMap<String, NodeState> out = new TreeMap<>();
    for (JsonNode item : nodeList.path("items")) {
      String name = item.path("metadata").path("name").asText();
      if (name.isEmpty()) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = item.path("metadata").path("labels").fields(); it.hasNext(); ) {
        var e = it.next();
        labels.put(e.getKey(), e.getValue().asText());
      }
      int count = intOr(item.path("status").path("capacity").path("nvidia.com/gpu").asText(), defaults.count());
      String model = labels.getOrDefault("nvidia.com/gpu.product", defaults.model());
      int memory = intOr(labels.get("nvidia.com/gpu.memory"), defaults.memoryMiB());
      int islands = intOr(labels.get(topology.nvlinkIslands()), defaults.nvlinkIslands());
      String[] sw = NodeState.qualify(first(labels, topology.core()),
          first(labels, topology.aggregation()), first(labels, topology.access()));
      boolean drained = item.path("spec").path("unschedulable").asBoolean(false)
          || hasUnschedulableTaint(item) || !ready(item) || drainList.contains(name);
      out.put(name, new NodeState(name, model, memory, count, islands, sw[0], sw[1], sw[2],
          drained, labels));
    }
    return out;
  }

  private static boolean hasUnschedulableTaint(JsonNode item) {
    for (JsonNode t : item.path("spec").path("taints")) {
      if ("node.kubernetes.io/unschedulable".equals(t.path("key").asText())) {
        return true;
      }
    }
    return false;
  }

  private static boolean ready(JsonNode item) {
    for (JsonNode c : item.path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText())) {
        return "True".equals(c.path("status").asText());
      }
    }
    return true; // no conditions reported: nothing says it is unready
  }

  private static String first(Map<String, String> labels, List<String> keys) {
    for (String k : keys) {
      String v = labels.get(k);
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return UNKNOWN;
  }

  private static int intOr(String s, int fallback) {
    if (s == null || s.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  private static SSLContext trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException("cannot trust the CA in " + caFile + ": " + e, e);
    }
  }
}
