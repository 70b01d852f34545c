package io.tideline.preemption.view;

import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.events.HoldKind;
import io.tideline.events.LedgerBound;
import io.tideline.events.LedgerChange;
import io.tideline.events.LedgerHold;
import io.tideline.events.LedgerHoldSet;
import io.tideline.events.LedgerReleased;
import io.tideline.events.LedgerReservation;
import io.tideline.events.LedgerReservationSet;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LedgerInput;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.ReservationAction;
import io.tideline.events.Verdict;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.TopologyDrivers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The preemption topology under {@link TopologyTestDriver} with a real schema registry: typed
 * inputs with explicit event times, decoded outputs. One per scenario.
 */
final class ViewDriver implements AutoCloseable {

  static final String CLUSTER = "c1";

  private final TopologyTestDriver driver;
  private final Serializer<Object> ser;
  private final Deserializer<Object> des;
  private final Map<String, TestInputTopic<byte[], byte[]>> inputs;
  private final Map<String, TestOutputTopic<byte[], byte[]>> outputs;
  private long ledgerVersion;

  ViewDriver(String registryUrl) {
    this(registryUrl, PreemptionPolicy.defaults(CLUSTER));
  }

  ViewDriver(String registryUrl, PreemptionPolicy policy) {
    Map<String, Object> serde = AvroSerdes.serdeConfig(registryUrl, true);
    ser = AvroSerdes.valueSerializer(serde);
    des = AvroSerdes.valueDeserializer(serde);
    driver = TopologyDrivers.start(PreemptionTopology.build(policy, serde), "preemption-test");
    inputs = TopologyDrivers.rawInputs(driver, PreemptionTopology.inputTopics());
    outputs = TopologyDrivers.rawOutputs(driver, PreemptionTopology.outputTopics());
  }

  // ------------------------------------------------------------------ inputs

  void raw(String topic, String key, byte[] value, Instant at) {
    raw(topic, key, value, at, Provenance.ownerOf(topic)); // written by the topic's owner
  }

  /** As {@code producer} (its {@code tideline-producer} stamp; {@code null}: none). */
  void raw(String topic, String key, byte[] value, Instant at, String producer) {
    inputs.get(topic).pipeInput(new TestRecord<>(
        key == null ? null : key.getBytes(StandardCharsets.UTF_8), value,
        Provenance.stampOf(producer), at));
  }


  /**
   * Whether every input is preceded by a tick at its time (the clock follows the scenario) and
   * followed by one 1 ms later, so the kernel decides on it at once (ADR 0008).
   */
  boolean autoTick = true;
  private Instant last;

  void send(String topic, String key, Object value, Instant at) {
    boolean clock = TopicCatalogue.CLUSTER_CLOCK.equals(topic);
    if (autoTick && !clock && (last == null || at.isAfter(last))) {
      tick(at);
    }
    raw(topic, key, ser.serialize(topic, value), at);
    if (autoTick && !clock) {
      tick(at.plusMillis(1));
    }
  }

  /** {@code count} nodes of 8 GPUs named {@code n01…}, two per access switch. */
  void nodes(int count, Instant at) {
    for (NodeInventory n : ClusterNodes.joined(CLUSTER, count, at)) {
      send(TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), n, at);
    }
  }

  /** Submits {@code job} with quota's verdict (preemptible as declared; right as given). */
  void admit(JobSubmitted job, boolean right, Instant at) {
    send(TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), job, at);
    verdict(job, job.getPreemptible(), right, at);
  }

  void verdict(JobSubmitted job, boolean preemptible, boolean right, Instant at) {
    send(TopicCatalogue.QUOTA_VERDICTS, job.getJobId(), QuotaVerdict.newBuilder()
        .setJobId(job.getJobId()).setTenant(job.getTenant()).setQueue("search/ranking")
        .setDecidedAt(at).setVerdict(Verdict.GUARANTEED).setGpus(job.getResources().getGpuCount())
        .setPreemptible(preemptible).setPreemptionRightGranted(right)
        .setReason("test").setPolicyVersion("q1").build(), at);
  }

  /** Placement binds whole GPUs {@code 0..gpus-1} of {@code node} to {@code jobId}. */
  void placed(String jobId, String node, int gpus, Instant at) {
    List<GpuAssignment> as = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      as.add(new GpuAssignment(node, g, 1.0));
    }
    placement(jobId, PlacementOutcome.PLACED, as, at);
  }

  void released(String jobId, Instant at) {
    placement(jobId, PlacementOutcome.RELEASED, List.of(), at);
  }

  /** Placement's ledger change for a decision of {@code outcome} ({@code placement.ledger}). */
  void placement(String jobId, PlacementOutcome outcome, List<GpuAssignment> as, Instant at) {
    ledgerVersion++;
    Object change = switch (outcome) {
      case PLACED, MIGRATED -> new LedgerBound(jobId, as, java.util.Map.of());
      case RELEASED -> new LedgerReleased(jobId);
      case HELD_FOR_PREEMPTOR -> new LedgerHoldSet(new LedgerHold("hold:" + jobId,
          HoldKind.PREEMPT, jobId, "pd", List.of(), as));
      default -> throw new IllegalArgumentException("no ledger change for " + outcome);
    };
    send(TopicCatalogue.PLACEMENT_LEDGER, CLUSTER, LedgerChange.newBuilder().setCluster(CLUSTER)
        .setVersion(ledgerVersion).setAt(at).setChange(change).build(), at);
  }

  /** A ledger change the intake must refuse (it does not advance the ledger version). */
  void invalidPlacement(String jobId, List<GpuAssignment> as, Instant at) {
    send(TopicCatalogue.PLACEMENT_LEDGER, CLUSTER, LedgerChange.newBuilder().setCluster(CLUSTER)
        .setVersion(ledgerVersion + 1).setAt(at).setChange(new LedgerBound(jobId, as, java.util.Map.of())).build(),
        at);
  }

  long ledgerVersion() {
    return ledgerVersion;
  }

  void lifecycle(String jobId, LifecycleType type, Instant at) {
    send(TopicCatalogue.JOBS_LIFECYCLE, jobId, JobLifecycle.newBuilder().setJobId(jobId)
        .setCluster(CLUSTER).setType(type).setOccurredAt(at).build(), at);
  }

  /** Placement asks room for {@code job} (its shape), at the current ledger version. */
  String request(JobSubmitted job, Instant at) {
    String id = CLUSTER + "/preempt/" + job.getJobId() + "/v" + ledgerVersion;
    send(TopicCatalogue.PREEMPTION_REQUESTS, CLUSTER, PreemptionRequest.newBuilder()
        .setRequestId(id).setCluster(CLUSTER).setPreemptorJobId(job.getJobId())
        .setPreemptorClass(job.getWorkloadClass()).setShape(job.getResources())
        .setTrigger(PreemptionTrigger.UNPLACEABLE).setLedgerVersion(ledgerVersion)
        .setRequestedAt(at).build(), at);
    return id;
  }

  /**
   * Placement's request at a reservation start: the jobs on the GPUs it reserved for
   * {@code service} and the reserved share each holds, at the current ledger version.
   */
  String reservationStart(String reservationId, String service,
      java.util.Map<String, Double> holders, Instant at) {
    return reservationStart(reservationId, service, holders,
        (int) Math.ceil(holders.values().stream().mapToDouble(Double::doubleValue).sum()), at);
  }

  /** A reservation start asking for {@code count} GPUs among {@code holders} (ADR 0039). */
  String reservationStart(String reservationId, String service,
      java.util.Map<String, Double> holders, int count, Instant at) {
    String id = CLUSTER + "/reservation/" + reservationId + "/v" + ledgerVersion;
    List<io.tideline.events.ReservedGpuHolder> list = new ArrayList<>();
    holders.forEach((job, gpus) -> list.add(new io.tideline.events.ReservedGpuHolder(job, gpus)));
    send(TopicCatalogue.PREEMPTION_REQUESTS, CLUSTER, PreemptionRequest.newBuilder()
        .setRequestId(id).setCluster(CLUSTER).setPreemptorJobId("reservation/" + reservationId)
        .setPreemptorClass(io.tideline.events.WorkloadClass.ONLINE_INFERENCE)
        .setShape(io.tideline.events.ResourceRequest.newBuilder().setGpuCount(count)
            .setGpuShare(1.0).setGangSize(1).setNodes(0).setAllowedGpuModels(List.of())
            .setHardwarePreference(io.tideline.events.HardwarePreference.ANY).build())
        .setTrigger(PreemptionTrigger.RESERVATION_START).setLedgerVersion(ledgerVersion)
        .setRequestedAt(at).setReservationId(reservationId).setServiceId(service)
        .setHolders(list).build(), at);
    return id;
  }

  void tick(Instant at) {
    if (last == null || at.isAfter(last)) {
      last = at;
    }
    send(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, ClockTick.newBuilder().setCluster(CLUSTER)
        .setTime(at).setSequence(at.getEpochSecond()).setIntervalMillis(60_000)
        .setSource(ClockSource.SIMULATED).build(), at);
  }

  /** Placement reserves GPUs {@code 0..gpus-1} of n01 for {@code service} (its ledger change). */
  void reserve(String id, String service, double gpus, Instant from, Instant until, Instant at) {
    ledgerVersion++;
    List<io.tideline.events.GpuRef> refs = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      refs.add(new io.tideline.events.GpuRef("n01", g));
    }
    send(TopicCatalogue.PLACEMENT_LEDGER, CLUSTER, LedgerChange.newBuilder().setCluster(CLUSTER)
        .setVersion(ledgerVersion).setAt(at).setChange(new LedgerReservationSet(
            new LedgerReservation(id, service, refs, from, until, null))).build(), at);
  }

  void reclaim(String jobId, ReclaimAction action, Instant at) {
    send("quota.reclaims", jobId, QuotaReclaim.newBuilder().setJobId(jobId).setTenant("search")
        .setQueue("search/ranking").setAction(action).setCurrentGpus(8)
        .setRecommendedGpus(action == ReclaimAction.RECLAIM ? 0 : 4).setPeakUtilisation(0.02)
        .setReason("peak utilisation 2% over 2 h").setDecidedAt(at).setPolicyVersion("q1")
        .build(), at);
  }

  // ------------------------------------------------------------------ outputs

  List<PreemptionDecision> decisions() {
    return read(TopicCatalogue.PREEMPTION_DECISIONS);
  }

  /** Preemption's input log ({@code preemption.inputs}): record key (the cluster) and value. */
  List<Map.Entry<String, LedgerInput>> inputLog() {
    List<Map.Entry<String, LedgerInput>> out = new ArrayList<>();
    for (var kv : outputs.get(TopicCatalogue.PREEMPTION_INPUTS).readKeyValuesToList()) {
      out.add(Map.entry(new String(kv.key, StandardCharsets.UTF_8),
          (LedgerInput) des.deserialize(TopicCatalogue.PREEMPTION_INPUTS, kv.value)));
    }
    return out;
  }

  /** The bytes {@link #send} writes for {@code value} (the registry's wire format). */
  byte[] bytes(String topic, Object value) {
    return ser.serialize(topic, value);
  }

  List<DeadLetter> deadLetters(String topic) {
    return read(topic + ".dlq");
  }

  /** The decision kept for the REST API, decoded, or null. */
  PreemptionDecision kept(String decisionId) {
    KeyValueStore<String, byte[]> s = driver.getKeyValueStore(PreemptionTopology.DECISION_STORE);
    byte[] b = s.get(decisionId);
    return b == null ? null : (PreemptionDecision) des.deserialize("x", b);
  }

  @SuppressWarnings("unchecked")
  private <T> List<T> read(String topic) {
    List<T> out = new ArrayList<>();
    for (byte[] v : outputs.get(topic).readValuesToList()) {
      out.add((T) des.deserialize(topic, v));
    }
    return out;
  }

  @Override
  public void close() {
    driver.close();
  }
}
