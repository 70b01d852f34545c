package io.tideline.core.cluster;

import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Builds a cluster scenario as a table: nodes with their switch path, then running jobs by the
 * GPUs they hold, then reservations.
 */
public final class TestCluster {

  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, List<GpuAssignment>> held = new LinkedHashMap<>();
  private final Map<String, JobRequest> jobs = new LinkedHashMap<>();
  private final List<Reservation> reservations = new ArrayList<>();
  private String model = "H100";
  private int gpusPerNode = 8;
  private Resources allocatable = Resources.NONE;

  public static TestCluster cluster() {
    return new TestCluster();
  }

  /** Model of the nodes added next. */
  public TestCluster model(String model) {
    this.model = model;
    return this;
  }

  /** GPUs of the nodes added next. */
  public TestCluster gpusPerNode(int gpus) {
    this.gpusPerNode = gpus;
    return this;
  }

  /** CPU, memory, extended resources of the nodes added next (ADR 0030); default none declared. */
  public TestCluster allocatable(Resources r) {
    this.allocatable = r;
    return this;
  }

  /** A node under {@code asw}, in PSW {@code psw}, under core switch {@code dsw}. */
  public TestCluster node(String id, String dsw, String psw, String asw) {
    nodes.add(new Node(id, model, gpusPerNode, id, new SwitchPath(dsw, psw, asw), allocatable));
    return this;
  }

  /** A node sharing NVLink island {@code island} with other nodes (rack-scale NVLink). */
  public TestCluster nodeInIsland(String id, String island, String dsw, String psw, String asw) {
    nodes.add(new Node(id, model, gpusPerNode, island, new SwitchPath(dsw, psw, asw),
        allocatable));
    return this;
  }

  /** A running job holding whole GPUs {@code gpus} on {@code nodeId}. */
  public TestCluster running(String jobId, String nodeId, int... gpus) {
    for (int g : gpus) {
      hold(jobId, nodeId, g, 1.0);
    }
    return this;
  }

  /** A running job holding whole GPUs {@code from..to-1} on {@code nodeId}. */
  public TestCluster runningRange(String jobId, String nodeId, int from, int to) {
    for (int g = from; g < to; g++) {
      hold(jobId, nodeId, g, 1.0);
    }
    return this;
  }

  /** A running fractional instance of {@code share} on one GPU. */
  public TestCluster instance(String jobId, String nodeId, int gpu, double share) {
    jobs.putIfAbsent(jobId, TestJobs.instance(jobId, share).build());
    return hold(jobId, nodeId, gpu, share);
  }

  private TestCluster hold(String jobId, String nodeId, int gpu, double share) {
    held.computeIfAbsent(jobId, k -> new ArrayList<>()).add(new GpuAssignment(nodeId, gpu, share));
    return this;
  }

  /** A reservation of whole GPUs on {@code nodeId} for {@code serviceId} from {@code startsAt}. */
  public TestCluster reserve(String id, String serviceId, Instant startsAt, String nodeId,
      int... gpus) {
    TreeSet<GpuRef> refs = new TreeSet<>();
    for (int g : gpus) {
      refs.add(new GpuRef(nodeId, g));
    }
    reservations.add(new Reservation(id, serviceId, refs, startsAt, null));
    return this;
  }

  public ClusterSnapshot build() {
    ClusterSnapshot.Builder b = ClusterSnapshot.builder(Topology.of(nodes));
    held.forEach((jobId, as) -> {
      JobRequest job = jobs.containsKey(jobId) ? jobs.get(jobId)
          : TestJobs.training(jobId, as.size()).build();
      b.allocate(new Allocation(job, as));
    });
    reservations.forEach(b::reserve);
    return b.build();
  }
}
