package io.tideline.preemption.view;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SwitchPath;
import io.tideline.events.Verdict;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A view rebuilt from its store entries (what a restarted task restores from the changelog)
 * decides exactly as the view that wrote them.
 */
class ClusterViewRestoreTest {

  static final Instant T11 = Instant.parse("2026-11-02T11:00:00Z");
  static final Instant T14 = Instant.parse("2026-11-02T14:00:00Z");
  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  static Serializer<Object> ser;
  static Deserializer<Object> des;

  @BeforeAll
  static void serdes() {
    Map<String, Object> serde = AvroSerdes.serdeConfig(registry.url(), true);
    ser = AvroSerdes.valueSerializer(serde);
    des = AvroSerdes.valueDeserializer(serde);
  }

  /** The store as a map (kind → id → bytes) and the decisions emitted. */
  static final class Recorder implements ClusterView.Effects {
    final Map<String, Map<String, byte[]>> store = new HashMap<>();
    final List<PreemptionDecision> decisions = new ArrayList<>();

    @Override
    public byte[] emit(String topic, String key, SpecificRecord value) {
      decisions.add((PreemptionDecision) value);
      return ser.serialize(topic, value);
    }

    @Override
    public void put(String kind, String id, byte[] value) {
      if (value == null) {
        store.getOrDefault(kind, new HashMap<>()).remove(id);
      } else {
        store.computeIfAbsent(kind, k -> new HashMap<>()).put(id, value);
      }
    }

    @Override
    public void keep(String decisionId, byte[] value) {}
  }

  byte[] bytes(Object event) {
    return ser.serialize("t", event);
  }

  @Test
  void shouldDecideTheSameAfterARestoreFromTheStore() {
    PreemptionPolicy policy = PreemptionPolicy.defaults("c1");
    ClusterView before = new ClusterView("c1", policy, des);
    Recorder fx = new Recorder();
    for (String n : List.of("n01", "n02")) {
      NodeInventory inv = NodeInventory.newBuilder().setCluster("c1").setNodeId(n)
          .setChange(NodeChange.JOINED).setObservedAt(T11).setGpuModel("H100")
          .setGpuMemoryMiB(81920).setGpuCount(8).setSwitchPath(SwitchPath.newBuilder()
              .setAccessSwitch("asw1").setAggregationSwitch("psw1").setCoreSwitch("dsw1").build())
          .build();
      before.onInventory(fx, bytes(inv), inv);
    }
    JobSubmitted inf = JobSubmissions.onlineInference("inf-1", "search", 1.0).gpus(8)
        .gang(8, 1).at(T14).build();
    long version = 0;
    for (JobSubmitted j : List.of(JobSubmissions.training("train-a").at(T11).build(),
        JobSubmissions.training("train-b").at(T11).build(), inf)) {
      before.onSubmitted(fx, bytes(j), j);
      QuotaVerdict v = QuotaVerdict.newBuilder().setJobId(j.getJobId()).setTenant("search")
          .setQueue("search/ranking").setDecidedAt(T11).setVerdict(Verdict.GUARANTEED)
          .setGpus(8).setPreemptible(j.getPreemptible())
          .setPreemptionRightGranted(j.getPreemptionRight()).setReason("t")
          .setPolicyVersion("q1").build();
      before.onVerdict(fx, bytes(v), v);
    }
    for (String[] job : new String[][] {{"train-a", "n01", "2026-11-02T11:00:00Z"},
        {"train-b", "n02", "2026-11-02T13:50:00Z"}}) {
      List<GpuAssignment> as = new ArrayList<>();
      for (int g = 0; g < 8; g++) {
        as.add(new GpuAssignment(job[1], g, 1.0));
      }
      Instant started = Instant.parse(job[2]);
      PlacementDecision p = PlacementDecision.newBuilder()
          .setDecisionId("c1/v" + (++version) + "/" + job[0]).setCluster("c1").setJobId(job[0])
          .setDecidedAt(started).setOutcome(PlacementOutcome.PLACED).setAssignments(as)
          .setLedgerVersion(version).setPolicyVersion("placement-1").build();
      before.onPlacement(fx, bytes(p), p);
      before.onLifecycle(fx, JobLifecycle.newBuilder().setJobId(job[0]).setCluster("c1")
          .setType(LifecycleType.CHECKPOINTED).setOccurredAt(Instant.parse("2026-11-02T13:58:00Z"))
          .build());
    }
    PreemptionRequest r = PreemptionRequest.newBuilder().setRequestId("c1/preempt/inf-1/v2")
        .setCluster("c1").setPreemptorJobId("inf-1").setPreemptorClass(inf.getWorkloadClass())
        .setShape(inf.getResources()).setTrigger(PreemptionTrigger.UNPLACEABLE)
        .setLedgerVersion(version).setRequestedAt(T14).build();

    ClusterView after = new ClusterView("c1", policy, des);
    after.restore(fx.store);
    Recorder fx2 = new Recorder();
    after.onRequest(fx2, r);
    before.onRequest(fx, r);

    assertThat(fx2.decisions).hasSize(1);
    assertThat(fx2.decisions.get(0).getVictims()).extracting(v -> v.getJobId())
        .containsExactly("train-a");
    assertThat(fx2.decisions.get(0).toString()).isEqualTo(fx.decisions.get(0).toString());
  }
}
