package io.tideline.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.tideline.events.GpuAssignment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Laying a gang's pods onto placement's GPUs: each pod a worker on one node. */
class GangPlanTest {

  static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata()
        .build();
  }

  static List<GpuAssignment> gpus(String node, double share, int... idx) {
    List<GpuAssignment> out = new ArrayList<>();
    for (int i : idx) {
      out.add(GpuAssignment.newBuilder().setNodeId(node).setGpuIndex(i).setShare(share).build());
    }
    return out;
  }

  @Test
  void shouldGiveEachPodOfATwoNodeGangOneNodeInNameOrder() {
    List<GpuAssignment> a = new ArrayList<>(gpus("n2", 1, 7, 6, 5, 4, 3, 2, 1, 0));
    a.addAll(gpus("n1", 1, 0, 1, 2, 3, 4, 5, 6, 7));
    List<GangPlan.Slot> plan = GangPlan.lay(List.of(pod("w-1"), pod("w-0")), a, 8).slots();
    assertThat(plan).extracting(s -> s.pod().getMetadata().getName() + "@" + s.node() + ":"
        + s.indices()).containsExactly("w-0@n1:0,1,2,3,4,5,6,7", "w-1@n2:0,1,2,3,4,5,6,7");
  }

  @Test
  void shouldPutTwoWorkersOnOneNodeWhenPlacementChoseOne() {
    List<GangPlan.Slot> plan = GangPlan.lay(List.of(pod("w-0"), pod("w-1")),
        gpus("n1", 1, 0, 1, 2, 3), 2).slots();
    assertThat(plan).extracting(GangPlan.Slot::indices).containsExactly("0,1", "2,3");
  }

  @Test
  void shouldWriteTheShareOfAFractionalPlacement() {
    GangPlan.Slot s = GangPlan.lay(List.of(pod("r")), gpus("n3", 0.25, 5), 1).slots().get(0);
    assertThat(GangPlan.annotations(s, "ml/r", "d1")).containsEntry("tideline.io/gpus", "5")
        .containsEntry("tideline.io/gpu-share", "0.25").containsEntry("tideline.io/decision", "d1");
  }

  @Test
  void shouldLayThePodsOfAJobWithoutGpusOntoTheNodesPlacementChoseWithoutGpuAnnotations() {
    GangPlan.Plan plan = GangPlan.layPods(List.of(pod("etl-2"), pod("etl-0"), pod("etl-1")),
        java.util.Map.of("n2", 1, "n1", 2));

    assertThat(plan.slots()).extracting(s -> s.pod().getMetadata().getName() + "@" + s.node())
        .containsExactly("etl-0@n1", "etl-1@n1", "etl-2@n2");
    assertThat(plan.standby()).isEmpty();
    assertThat(GangPlan.annotations(plan.slots().get(0), "ml/etl", "d1"))
        .doesNotContainKey("tideline.io/gpus").containsEntry("tideline.io/decision", "d1");
  }

  @Test
  void shouldRefuseADecisionPlacingAnotherNumberOfPodsWithoutGpus() {
    assertThatThrownBy(() -> GangPlan.layPods(List.of(pod("etl-0"), pod("etl-1")),
        java.util.Map.of("n1", 1))).hasMessageContaining("places 1 pod(s) without GPUs but the job has 2");
  }

  @Test
  void shouldRefuseAssignmentsThatSplitAWorkerAcrossNodes() {
    List<GpuAssignment> a = new ArrayList<>(gpus("n1", 1, 0, 1, 2));
    a.addAll(gpus("n2", 1, 0));
    assertThatThrownBy(() -> GangPlan.lay(List.of(pod("w-0"), pod("w-1")), a, 2))
        .hasMessageContaining("node n1 holds 3 assigned GPUs");
  }

  @Test
  void shouldBindAsManyPodsAsAShrunkPlacementHasWorkersAndLeaveTheRestOnStandby() {
    // a 2 x 8 gang shrunk by quota (Q7) to 8 GPUs: placement places one worker of 8
    GangPlan.Plan plan = GangPlan.lay(List.of(pod("w-1"), pod("w-0")),
        gpus("n4", 1, 0, 1, 2, 3, 4, 5, 6, 7), 8);
    assertThat(plan.slots()).extracting(s -> s.pod().getMetadata().getName() + "@" + s.node()
        + ":" + s.indices()).containsExactly("w-0@n4:0,1,2,3,4,5,6,7");
    assertThat(plan.standby()).extracting(p -> p.getMetadata().getName()).containsExactly("w-1");
  }

  @Test
  void shouldRefuseAPlacementWhoseWorkersAreSmallerThanWhatEachPodAsksFor() {
    // a 4-GPU pod shrunk to 2 GPUs is placed as two 1-GPU workers: no pod of this gang fits them
    assertThatThrownBy(() -> GangPlan.lay(List.of(pod("solo")), gpus("n1", 1, 0, 1).subList(0, 2),
        4)).hasMessageContaining("2 assigned GPUs are not whole workers of the 4 GPU(s)");
  }

  @Test
  void shouldRefuseMoreWorkersThanTheGangHasPods() {
    assertThatThrownBy(() -> GangPlan.lay(List.of(pod("w-0")), gpus("n1", 1, 0, 1, 2, 3), 2))
        .hasMessageContaining("make 2 workers of 2 GPU(s), but the gang has 1 pods");
  }
}
