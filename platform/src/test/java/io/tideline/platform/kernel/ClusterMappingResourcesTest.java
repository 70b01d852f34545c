package io.tideline.platform.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.LedgerChange;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.ResourceQuantities;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * ADR 0030 through the one mapping: a node's allocatable and a job's per-worker CPU, memory and
 * extended resources reach the core from the contracts, survive the placement and preemption
 * stores, and records written before the fields existed read as "undeclared" and "asks none".
 */
class ClusterMappingResourcesTest {

  static final Instant NOW = Instant.parse("2026-11-02T09:00:00Z");
  static final Resources EACH = Resources.of(8_000, 64L << 30).with("rdma/hca", 1);

  @Test
  void shouldCarryAJobsPerWorkerResourcesFromTheSubmissionThroughItsStoreRecord() {
    JobSubmitted e = JobSubmissions.training("j").at(NOW).build();
    e.getResources().setPerWorker(new ResourceQuantities(8_000L, 64L << 30,
        Map.of("rdma/hca", 1L)));

    JobRequest job = ClusterMapping.job(e);

    assertThat(job.resources()).isEqualTo(EACH);
    assertThat(ClusterMapping.job(ClusterMapping.stored(job))).isEqualTo(job);
  }

  @Test
  void shouldCarryANodesAllocatableFromInventoryThroughItsStoreRecord() {
    NodeInventory n = ClusterNodes.joined("default", 1, NOW).get(0);
    n.setAllocatable(new ResourceQuantities(96_000L, 1L << 40, Map.of("rdma/hca", 4L)));

    NodeRecord node = ClusterMapping.node(n);

    assertThat(node.node().allocatable())
        .isEqualTo(Resources.of(96_000, 1L << 40).with("rdma/hca", 4));
    assertThat(ClusterMapping.node(ClusterMapping.stored(node))).isEqualTo(node);
  }

  @Test
  void shouldReadRecordsWithoutTheFieldsAsUndeclaredAndAskingNone() {
    JobRequest job = ClusterMapping.job(JobSubmissions.training("old").at(NOW).build());
    NodeRecord node = ClusterMapping.node(ClusterNodes.joined("default", 1, NOW).get(0));

    assertThat(job.resources()).isEqualTo(Resources.NONE);
    assertThat(node.node().allocatable()).isEqualTo(Resources.NONE);
  }

  @Test
  void shouldCarryAGpulessJobsPodsPerNodeThroughTheLedgerAndItsStoreRecord() {
    JobRequest etl = ClusterMapping.job(JobSubmissions.training("etl").at(NOW).build())
        .withResources(EACH);
    SortedMap<String, Integer> pods = new TreeMap<>(Map.of("n1", 3, "n2", 1));
    LedgerChange.Bound bound = new LedgerChange.Bound(7, NOW, "etl", List.of(), pods);

    assertThat(ClusterMapping.change(ClusterMapping.event("c1", bound))).isEqualTo(bound);
    Binding b = new Binding(etl, List.of(), 7, NOW, pods);
    assertThat(ClusterMapping.binding(ClusterMapping.stored(b)).workers()).isEqualTo(pods);
    // a job on GPUs carries no workers: they follow from its assignments
    assertThat(ClusterMapping.event("c1", new LedgerChange.Bound(8, NOW, "g", List.of()))
        .getChange()).extracting("workers").isEqualTo(Map.of());
  }
}
