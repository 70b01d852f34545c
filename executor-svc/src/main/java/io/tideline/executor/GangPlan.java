package io.tideline.executor;

import io.fabric8.kubernetes.api.model.Pod;
import io.tideline.events.GpuAssignment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which pod of a gang goes to which node, with which GPUs, for a placement's assignments. Placement
 * gives each of the gang's workers {@code gpuCount / gangSize} GPUs on one node (the core's
 * {@code Placer}); the executor only lays the pods, in name order, onto the nodes in id order.
 * Each pod must get exactly the GPUs it asks for (the kubelet allocates its limits; they cannot
 * change in place), so a placement of a shrunk job (Q7: the same GPUs per worker, fewer workers)
 * binds as many pods as it has workers and leaves the rest on standby. Deterministic, so a
 * replica that re-reads the same decision lays them out the same way.
 */
public final class GangPlan {

  /** One pod's place: node and GPUs. */
  public record Slot(Pod pod, String node, List<GpuAssignment> gpus) {

    /** {@code 0,1,2,3}: the indices as nvidia-smi numbers them. */
    public String indices() {
      StringBuilder b = new StringBuilder();
      for (GpuAssignment a : gpus) {
        if (b.length() > 0) {
          b.append(',');
        }
        b.append(a.getGpuIndex());
      }
      return b.toString();
    }

    /** The share of a fractional placement, or 1. */
    public double share() {
      return gpus.size() == 1 ? gpus.get(0).getShare() : 1.0;
    }
  }

  private GangPlan() {}

  /**
   * A decision laid onto a gang: the pods it binds, and the pods it leaves out (a placement with
   * fewer workers than the gang has pods: a job shrunk by quota, Q7).
   */
  public record Plan(List<Slot> slots, List<Pod> standby) {}

  /**
   * Lays {@code pods}, each asking for {@code perPod} GPUs (1 for a fractional instance), onto
   * {@code assignments}: the assigned GPUs are {@code assignments / perPod} workers, each on one
   * node; the first that many pods in name order get them, the others are left on standby.
   *
   * @throws IllegalArgumentException when the assignments do not fit the pods, with the reason
   */
  public static Plan lay(List<Pod> pods, List<GpuAssignment> assignments, int perPod) {
    if (pods.isEmpty() || assignments.isEmpty() || perPod < 1) {
      throw new IllegalArgumentException(assignments.size() + " assigned GPUs for " + pods.size()
          + " pods asking " + perPod + " GPU(s) each");
    }
    if (assignments.size() % perPod != 0) {
      throw new IllegalArgumentException(assignments.size() + " assigned GPUs are not whole "
          + "workers of the " + perPod + " GPU(s) each pod asks for (a pod's GPUs cannot change "
          + "in place)");
    }
    int workers = assignments.size() / perPod;
    if (workers > pods.size()) {
      throw new IllegalArgumentException(assignments.size() + " assigned GPUs make " + workers
          + " workers of " + perPod + " GPU(s), but the gang has " + pods.size() + " pods");
    }
    TreeMap<String, List<GpuAssignment>> byNode = new TreeMap<>();
    for (GpuAssignment a : assignments) {
      byNode.computeIfAbsent(a.getNodeId(), n -> new ArrayList<>()).add(a);
    }
    byNode.values().forEach(l -> l.sort(Comparator.comparingInt(GpuAssignment::getGpuIndex)));
    List<Pod> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    List<Slot> out = new ArrayList<>();
    int next = 0;
    for (Map.Entry<String, List<GpuAssignment>> e : byNode.entrySet()) {
      List<GpuAssignment> gpus = e.getValue();
      if (gpus.size() % perPod != 0) {
        throw new IllegalArgumentException("node " + e.getKey() + " holds " + gpus.size()
            + " assigned GPUs, not a multiple of the " + perPod + " each pod asks for");
      }
      for (int i = 0; i < gpus.size(); i += perPod) {
        out.add(new Slot(sorted.get(next++), e.getKey(), List.copyOf(gpus.subList(i, i + perPod))));
      }
    }
    return new Plan(out, List.copyOf(sorted.subList(workers, sorted.size())));
  }

  /**
   * Lays the pods of a job without GPUs (ADR 0030) onto {@code workers} (node id → pods there):
   * pods in name order onto nodes in id order. Every pod is placed: such a job is never shrunk.
   *
   * @throws IllegalArgumentException when the decision places another number of pods
   */
  public static Plan layPods(List<Pod> pods, Map<String, Integer> workers) {
    int placed = workers.values().stream().mapToInt(Integer::intValue).sum();
    if (pods.isEmpty() || placed != pods.size()) {
      throw new IllegalArgumentException("the decision places " + placed + " pod(s) without GPUs "
          + "but the job has " + pods.size());
    }
    List<Pod> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    List<Slot> out = new ArrayList<>();
    int next = 0;
    for (Map.Entry<String, Integer> e : new TreeMap<>(workers).entrySet()) {
      for (int i = 0; i < e.getValue(); i++) {
        out.add(new Slot(sorted.get(next++), e.getKey(), List.of()));
      }
    }
    return new Plan(out, List.of());
  }

  /** The annotations written with a pod's Binding (ADR 0011); no GPU indices for a GPU-less pod. */
  public static Map<String, String> annotations(Slot s, String jobId, String decisionId) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put(Keys.JOB, jobId);
    if (!s.gpus().isEmpty()) {
      a.put(Keys.GPUS, s.indices());
    }
    if (s.share() < 1.0) {
      a.put(Keys.GPU_SHARE, Double.toString(s.share()));
    }
    a.put(Keys.DECISION, decisionId);
    return a;
  }
}
