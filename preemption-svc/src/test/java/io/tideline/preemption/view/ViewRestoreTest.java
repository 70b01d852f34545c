package io.tideline.preemption.view;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.core.preemption.kernel.PreemptionState;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LedgerBound;
import io.tideline.events.LedgerChange;
import io.tideline.events.LedgerInput;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SwitchPath;
import io.tideline.events.Verdict;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.PreemptionHost;
import io.tideline.platform.kernel.StoreCodec;
import io.tideline.platform.kernel.StoreOp;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.nio.ByteBuffer;
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
 * A view restored from its store decides exactly as the running one: the store writes of every
 * step (typed records, through the store codec) are all a restart needs — inputs still waiting in
 * the inbox included.
 */
class ViewRestoreTest {

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

  /** A running view and the store it writes, record by record. */
  static final class Run {
    final PreemptionHost host = new PreemptionHost(PreemptionPolicy.defaults("c1"));
    PreemptionState state = host.empty();
    final Map<String, Map<String, byte[]>> store = new HashMap<>();
    final List<Object> published = new ArrayList<>();

    void offer(String topic, SpecificRecord value) {
      byte[] bytes = ser.serialize(topic, value);
      LedgerInput env = LedgerInput.newBuilder().setSourceTopic(topic).setSourcePartition(0)
          .setSourceOffset(0).setPayload(ByteBuffer.wrap(bytes)).build();
      HostResult<PreemptionState> r = host.offer(host.clock(state), state, topic, value, env);
      for (StoreOp op : r.store()) {
        if (op.value() == null) {
          store.computeIfAbsent(op.table(), t -> new HashMap<>()).remove(op.id());
        } else {
          store.computeIfAbsent(op.table(), t -> new HashMap<>()).put(op.id(),
              StoreCodec.encode(op.value()));
        }
      }
      r.records().forEach(x -> published.add(x.value()));
      state = r.state();
    }

    Run restored() {
      Map<String, Map<String, SpecificRecord>> tables = new HashMap<>();
      store.forEach((t, rows) -> rows.forEach((id, b) -> tables.computeIfAbsent(t,
          x -> new HashMap<>()).put(id, StoreCodec.decode(host.storeTypes().get(t), b))));
      Run r = new Run();
      r.state = r.host.restore(tables, (topic, b) -> (SpecificRecord) des.deserialize(topic, b));
      return r;
    }
  }

  static ClockTick tick(Instant at) {
    return ClockTick.newBuilder().setCluster("c1").setTime(at).setSequence(0)
        .setIntervalMillis(60_000).setSource(ClockSource.SIMULATED).build();
  }

  @Test
  void shouldDecideTheSameAfterARestoreFromTheStore() {
    Run before = new Run();
    before.offer(TopicCatalogue.CLUSTER_CLOCK, tick(T11));
    for (String n : List.of("n01", "n02")) {
      before.offer(TopicCatalogue.CLUSTER_INVENTORY, NodeInventory.newBuilder().setCluster("c1")
          .setNodeId(n).setChange(NodeChange.JOINED).setObservedAt(T11).setGpuModel("H100")
          .setGpuMemoryMiB(81920).setGpuCount(8).setSwitchPath(SwitchPath.newBuilder()
              .setAccessSwitch("asw1").setAggregationSwitch("psw1").setCoreSwitch("dsw1").build())
          .build());
    }
    JobSubmitted inf = JobSubmissions.onlineInference("inf-1", "search", 1.0).gpus(8)
        .gang(8, 1).at(T11).build();
    for (JobSubmitted j : List.of(JobSubmissions.training("train-a").at(T11).build(),
        JobSubmissions.training("train-b").at(T11).build(), inf)) {
      before.offer(TopicCatalogue.JOBS_SUBMITTED, j);
      before.offer(TopicCatalogue.QUOTA_VERDICTS, QuotaVerdict.newBuilder()
          .setJobId(j.getJobId()).setTenant("search").setQueue("search/ranking")
          .setDecidedAt(T11).setVerdict(Verdict.GUARANTEED).setGpus(8)
          .setPreemptible(j.getPreemptible()).setPreemptionRightGranted(j.getPreemptionRight())
          .setReason("t").setPolicyVersion("q1").build());
    }
    long version = 0;
    for (String[] job : new String[][] {{"train-a", "n01", "2026-11-02T11:00:00Z"},
        {"train-b", "n02", "2026-11-02T13:50:00Z"}}) {
      List<GpuAssignment> as = new ArrayList<>();
      for (int g = 0; g < 8; g++) {
        as.add(new GpuAssignment(job[1], g, 1.0));
      }
      Instant started = Instant.parse(job[2]);
      before.offer(TopicCatalogue.CLUSTER_CLOCK, tick(started));
      before.offer(TopicCatalogue.PLACEMENT_LEDGER, LedgerChange.newBuilder().setCluster("c1")
          .setVersion(++version).setAt(started).setChange(new LedgerBound(job[0], as, java.util.Map.of())).build());
      before.offer(TopicCatalogue.JOBS_LIFECYCLE, JobLifecycle.newBuilder().setJobId(job[0])
          .setCluster("c1").setType(LifecycleType.CHECKPOINTED)
          .setOccurredAt(Instant.parse("2026-11-02T13:58:00Z")).build());
    }
    before.offer(TopicCatalogue.CLUSTER_CLOCK, tick(Instant.parse("2026-11-02T13:59:00Z")));
    // the request waits in the inbox when the store is read: the restore must keep it
    before.offer(TopicCatalogue.PREEMPTION_REQUESTS, PreemptionRequest.newBuilder()
        .setRequestId("c1/preempt/inf-1/v2").setCluster("c1").setPreemptorJobId("inf-1")
        .setPreemptorClass(inf.getWorkloadClass()).setShape(inf.getResources())
        .setTrigger(PreemptionTrigger.UNPLACEABLE).setLedgerVersion(version)
        .setRequestedAt(T14).build());

    Run after = before.restored();
    assertThat(after.state.cluster().version()).isEqualTo(before.state.cluster().version());
    assertThat(after.state.inbox().size()).isEqualTo(1);
    before.published.clear();
    before.offer(TopicCatalogue.CLUSTER_CLOCK, tick(T14.plusMillis(1)));
    after.offer(TopicCatalogue.CLUSTER_CLOCK, tick(T14.plusMillis(1)));

    assertThat(after.published).hasSize(1);
    assertThat(after.published.get(0).toString()).contains("train-a")
        .isEqualTo(before.published.get(0).toString());
  }
}
