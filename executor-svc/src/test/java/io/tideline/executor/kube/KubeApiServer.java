package io.tideline.executor.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Kubernetes control plane for one test class: etcd and kube-apiserver v1.37, built from
 * source by {@code src/test/go/apiserver/build.sh} (the Maven build runs it before the tests),
 * started as processes on free loopback ports of 32000–32999 (or the range of the system property
 * {@code tideline-kube-ports}, Maven's {@code -Dkube.ports=39500-39999}, for machines shared by
 * several builds) with a fresh data directory, a service-account key generated here, and
 * static-token authentication with RBAC:
 * <ul>
 *   <li>{@link #admin()}: a {@code system:masters} user (the test's own hands: nodes, pods, the
 *       kubelet's status updates);
 *   <li>{@link #executor()}: the user {@code system:serviceaccount:tideline:tideline-executor},
 *       so the ClusterRole and binding of {@code deploy/k8s/services/executor-svc.yaml} apply
 *       to it as they would to the Deployment's service account: the executor runs with exactly
 *       that RBAC.
 * </ul>
 * Without the binaries (no Go on this machine) the test class is skipped with that reason; under
 * CI ({@code CI=true}) it fails instead, since CI must run it.
 */
public final class KubeApiServer implements AutoCloseable {

  public static final String EXECUTOR_USER = "system:serviceaccount:tideline:tideline-executor";

  private final Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final String adminToken = UUID.randomUUID().toString();
  private final String executorToken = UUID.randomUUID().toString();
  private int apiPort;
  private final List<KubernetesClient> clients = new ArrayList<>();

  private KubeApiServer(Path dir) {
    this.dir = dir;
  }

  /** The binaries, or a skip (a failure under CI) saying why they are missing. */
  static Path binaries() {
    Path bin = Path.of(System.getProperty("tideline-kube-bin",
        System.getProperty("tideline-home", ".tideline") + "/kube/bin"));
    boolean there = Files.isExecutable(bin.resolve("kube-apiserver"))
        && Files.isExecutable(bin.resolve("etcd"));
    String why = "kube-apiserver/etcd not found in " + bin + ": they are built from source by "
        + "executor-svc/src/test/go/apiserver/build.sh, which needs Go 1.26+ (install Go and run "
        + "the Maven build again). The real-API-server tests are skipped.";
    if (!there && "true".equals(System.getenv("CI"))) {
      throw new IllegalStateException(why + " Under CI this is an error.");
    }
    if (!there) {
      System.err.println("WARNING: " + why); // loud on the console, not only in the report
    }
    Assumptions.assumeTrue(there, why);
    return bin;
  }

  /** Starts etcd and the API server and waits until the API server is ready. */
  public static KubeApiServer start(String name) throws Exception {
    Path bin = binaries();
    Path dir = Files.createTempDirectory("kube-" + name + "-");
    KubeApiServer s = new KubeApiServer(dir);
    try {
      s.run(bin);
      return s;
    } catch (Exception | Error e) {
      s.close();
      throw e;
    }
  }

  private void run(Path bin) throws Exception {
    int etcdPort = freePort();
    int peerPort = freePort();
    apiPort = freePort();
    // a service-account signing key, PKCS#8 PEM, as kube-apiserver requires one
    var kp = KeyPairGenerator.getInstance("RSA");
    kp.initialize(2048);
    Path saKey = dir.resolve("sa.key");
    Files.writeString(saKey, "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(
            kp.generateKeyPair().getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n");
    Path tokens = dir.resolve("tokens.csv");
    Files.writeString(tokens, adminToken + ",tideline-test-admin,admin-uid,\"system:masters\"\n"
        + executorToken + "," + EXECUTOR_USER + ",executor-uid,"
        + "\"system:serviceaccounts,system:serviceaccounts:tideline\"\n");
    String etcdUrl = "http://127.0.0.1:" + etcdPort;
    start("etcd", List.of(bin.resolve("etcd").toString(), "--data-dir=" + dir.resolve("etcd"),
        "--listen-client-urls=" + etcdUrl, "--advertise-client-urls=" + etcdUrl,
        "--listen-peer-urls=http://127.0.0.1:" + peerPort,
        "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
        "--initial-cluster=default=http://127.0.0.1:" + peerPort, "--log-level=warn"));
    start("kube-apiserver", List.of(bin.resolve("kube-apiserver").toString(),
        "--etcd-servers=" + etcdUrl, "--bind-address=127.0.0.1",
        "--secure-port=" + apiPort, "--advertise-address=127.0.0.1",
        "--endpoint-reconciler-type=none", "--cert-dir=" + dir.resolve("certs"),
        "--service-account-issuer=https://kubernetes.default.svc",
        "--service-account-key-file=" + saKey, "--service-account-signing-key-file=" + saKey,
        "--token-auth-file=" + tokens, "--authorization-mode=RBAC",
        // no controller manager runs, so nothing would create the service accounts it checks
        "--disable-admission-plugins=ServiceAccount",
        "--service-cluster-ip-range=10.96.0.0/24", "-v=1"));
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    KubernetesClient admin = null;
    while (true) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException("a control-plane process exited (" + p.exitValue()
              + "); logs in " + dir);
        }
      }
      try {
        if (admin == null && Files.exists(dir.resolve("certs/apiserver.crt"))) {
          admin = admin(); // the API server writes its self-signed certificate as it starts
        }
        if (admin != null && admin.namespaces().withName("default").get() != null) {
          return;
        }
      } catch (RuntimeException notYet) {
        // still starting
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("kube-apiserver not ready in 120 s; logs in " + dir);
      }
      Thread.sleep(200);
    }
  }

  private void start(String name, List<String> cmd) throws IOException {
    processes.add(new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile()).start());
  }

  public String url() {
    return "https://127.0.0.1:" + apiPort;
  }

  /** Where logs and data are. */
  public Path dir() {
    return dir;
  }

  /** A client with cluster-admin rights. */
  public KubernetesClient admin() {
    return client(adminToken);
  }

  /** A client as the executor's service account: only what deploy/k8s grants it. */
  public KubernetesClient executor() {
    return client(executorToken);
  }

  /**
   * Tideline's namespace and the executor's RBAC as {@code deploy/k8s} applies them: every object
   * of {@code deploy/k8s/services/executor-svc.yaml} under {@code repo} but its Deployment.
   */
  public void installExecutorRbac(Path repo) throws IOException {
    KubernetesClient admin = admin();
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("tideline")
        .endMetadata().build()).create();
    try (var in = Files.newInputStream(repo.resolve("deploy/k8s/services/executor-svc.yaml"))) {
      for (HasMetadata o : admin.load(in).items()) {
        if (!"Deployment".equals(o.getKind())) {
          admin.resource(o).inNamespace("tideline").create();
        }
      }
    }
  }

  /**
   * How an application's fabric8 client reaches this API server as the executor's service
   * account: the system properties fabric8's {@code Config.autoConfigure} reads at run time (URL,
   * CA, token; no kubeconfig, no in-cluster service account).
   */
  public Map<String, String> executorClientProperties() {
    return Map.of("kubernetes.master", url(),
        "kubernetes.certs.ca.file", dir.resolve("certs/apiserver.crt").toString(),
        "kubernetes.auth.token", executorToken,
        "kubernetes.auth.tryKubeConfig", "false",
        "kubernetes.auth.tryServiceAccount", "false");
  }

  /** A kubeconfig file for the admin user (for kubectl, and {@code ./tideline up}). */
  public Path kubeconfig() throws IOException {
    Path f = dir.resolve("kubeconfig");
    Files.writeString(f, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster: {server: "%s", certificate-authority: "%s"}
        users:
        - name: admin
          user: {token: "%s"}
        contexts:
        - name: test
          context: {cluster: test, user: admin, namespace: default}
        current-context: test
        """.formatted(url(), dir.resolve("certs/apiserver.crt"), adminToken));
    return f;
  }

  private synchronized KubernetesClient client(String token) {
    Config c = new ConfigBuilder(Config.empty()).withMasterUrl(url())
        .withCaCertFile(dir.resolve("certs/apiserver.crt").toString())
        .withOauthToken(token).withRequestTimeout(30_000).withConnectionTimeout(10_000).build();
    KubernetesClient k = new KubernetesClientBuilder().withConfig(c).build();
    clients.add(k);
    return k;
  }

  private static int freePort() throws IOException {
    String range = System.getProperty("tideline-kube-ports", "32000-32999").trim();
    String[] ends = range.split("-", 2);
    int low;
    int high;
    try {
      low = Integer.parseInt(ends[0].trim());
      high = Integer.parseInt(ends[ends.length - 1].trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("tideline-kube-ports must be a port range like "
          + "32000-32999, got '" + range + "'", e);
    }
    if (low < 1024 || high > 65535 || high < low) {
      throw new IllegalArgumentException("tideline-kube-ports must be a range inside "
          + "1024-65535, got '" + range + "'");
    }
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = low + (int) (Math.random() * (high - low + 1));
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        s.setReuseAddress(true);
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port in " + low + "-" + high + " (tideline-kube-ports, Maven -Dkube.ports)");
  }

  @Override
  public void close() {
    clients.forEach(KubernetesClient::close);
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process p = processes.get(i);
      p.destroy();
      try {
        if (!p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
