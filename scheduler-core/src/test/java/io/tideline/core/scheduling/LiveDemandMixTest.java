package io.tideline.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.TestJobs;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.cluster.state.NodeStatus;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.NodeScoring;
import io.tideline.core.quota.Verdict;
import io.tideline.core.scheduling.PlacementEffect.Decided;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ADR 0038: with {@code NodeScoring.live()} the queue pass measures fragmentation against the
 * jobs running and waiting now, so a flexible job stays off the small nodes of the model that
 * the constrained work in the fleet needs; with the default best fit it takes the tightest node.
 */
class LiveDemandMixTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  /** Two small T4 nodes (2 GPUs each) and one A100 node of 4 GPUs under one switch. */
  static KernelDriver fleet(NodeScoring scoring) {
    PlacementPolicy p = PlacementPolicy.defaults(KernelDriver.CLUSTER);
    KernelDriver k = new KernelDriver(p.with(p.rights(), p.inferencePartition(), p.defrag(),
        p.placement().withScoring(scoring)));
    for (String[] n : List.of(new String[] {"t4a", "T4", "2"}, new String[] {"t4b", "T4", "2"},
        new String[] {"a100", "A100", "4"})) {
      k.offer(new PlacementInput.Inventory(new NodeRecord(new Node(n[0], n[1],
          Integer.parseInt(n[2]), n[0], new SwitchPath("dsw1", "psw1", "asw1")),
          NodeStatus.ACTIVE, T0)));
    }
    return k;
  }

  /** A T4-only 2-GPU job runs; then a 1-GPU job that may run anywhere is placed. */
  static Decided flexibleBeside(KernelDriver k) {
    JobRequest t4 = TestJobs.training("t4-only", 2).workers(1).models("T4").submittedAt(T0)
        .build();
    k.submit(t4).admit(t4, Verdict.SHARED, T0).tick(T0.plusMillis(1));
    assertThat(k.decisions("t4-only")).extracting(Decided::outcome)
        .containsExactly(Outcome.PLACED);
    JobRequest flex = TestJobs.training("flex", 1).submittedAt(T0.plusSeconds(1)).build();
    k.submit(flex).admit(flex, Verdict.SHARED, T0.plusSeconds(1)).tick(T0.plusSeconds(2));
    return k.decisions("flex").get(0);
  }

  @Test
  void shouldKeepAFlexibleJobOffTheNodesTheRunningConstrainedWorkNeeds() {
    Decided d = flexibleBeside(fleet(NodeScoring.live()));

    assertThat(d.outcome()).isEqualTo(Outcome.PLACED);
    assertThat(d.assignments()).extracting(GpuAssignment::nodeId).containsOnly("a100");
    assertThat(d.trace()).anySatisfy(t -> {
      assertThat(t.rule()).isEqualTo("T2 fragmentation score");
      assertThat(t.subject()).isEqualTo("a100");
    });
  }

  @Test
  void shouldTakeTheTightestNodeUnderTheDefaultBestFit() {
    Decided d = flexibleBeside(fleet(NodeScoring.DEFAULTS));

    assertThat(d.assignments()).extracting(GpuAssignment::nodeId).containsOnly("t4b");
    assertThat(d.trace()).extracting(TraceEntry::rule).doesNotContain("T2 fragmentation score");
  }
}
