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
 * Deterministic, so a replica that re-reads the same decision lays them out the same way.
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
   * Lays {@code pods} onto {@code assignments}.
   *
   * @throws IllegalArgumentException when the assignments do not fit the pods, with the reason
   */
  public static List<Slot> lay(List<Pod> pods, List<GpuAssignment> assignments) {
    if (pods.isEmpty() || assignments.isEmpty() || assignments.size() % pods.size() != 0) {
      throw new IllegalArgumentException(assignments.size() + " assigned GPUs cannot be shared "
          + "evenly by " + pods.size() + " pods");
    }
    int per = assignments.size() / pods.size();
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
      if (gpus.size() % per != 0) {
        throw new IllegalArgumentException("node " + e.getKey() + " holds " + gpus.size()
            + " assigned GPUs, not a multiple of the " + per + " each pod asks for");
      }
      for (int i = 0; i < gpus.size(); i += per) {
        out.add(new Slot(sorted.get(next++), e.getKey(), List.copyOf(gpus.subList(i, i + per))));
      }
    }
    return out;
  }

  /** The annotations written with a pod's Binding (ADR 0011). */
  public static Map<String, String> annotations(Slot s, String jobId, String decisionId) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put(Keys.JOB, jobId);
    a.put(Keys.GPUS, s.indices());
    if (s.share() < 1.0) {
      a.put(Keys.GPU_SHARE, Double.toString(s.share()));
    }
    a.put(Keys.DECISION, decisionId);
    return a;
  }
}
