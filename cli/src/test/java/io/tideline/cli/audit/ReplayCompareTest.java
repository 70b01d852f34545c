package io.tideline.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Victim;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/**
 * The replay's comparison of a recorded and a recomputed preemption decision: a victim's nullable
 * {@code retryAfter} instant is a union of a logical type, which Avro's own {@code equals} cannot
 * compare once decoded (it throws), so the replay compares structurally. Decisions are
 * round-tripped through Avro's binary encoding, as the replay reads them off Kafka.
 */
class ReplayCompareTest {

  static final Instant T15 = Instant.parse("2026-11-02T15:40:00Z");

  /** The decision as the replay sees it: encoded and decoded again (arrays as Avro arrays). */
  static PreemptionDecision decision(Instant retryAfter) {
    return decoded(built(retryAfter));
  }

  static PreemptionDecision decoded(PreemptionDecision d) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bytes, null);
      new SpecificDatumWriter<>(PreemptionDecision.class).write(d, enc);
      enc.flush();
      return new SpecificDatumReader<>(PreemptionDecision.class).read(null,
          DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static PreemptionDecision built(Instant retryAfter) {
    return PreemptionDecision.newBuilder().setDecisionId("default/preempt/inf-1/v9/decision")
        .setRequestId("default/preempt/inf-1/v9").setCluster("default").setPreemptorJobId("inf-1")
        .setDecidedAt(T15).setOutcome(PreemptionOutcome.PREEMPT).setPreemptorScore(10)
        .setVictims(List.of(Victim.newBuilder().setJobId("job-b1").setTenant("research")
            .setUser("alice").setScore(5).setGpus(8).setCostGpuHours(1.2).setQueueBoost(30)
            .setRetryAfter(retryAfter).setSharedPoolFallback(true).build()))
        .setTotalCostGpuHours(1.2).setGainGpuHours(20).setLedgerVersion(9)
        .setPolicyVersion("preemption-v1").setTrace(List.of(new RuleTraceEntry("inf-1",
            "P5 gain", "PASS", "gain 20.00 GPU-h"))).build();
  }

  static Replay.Decision at(PreemptionDecision d, String where) {
    return new Replay.Decision("preemption.decisions", "default", T15.toEpochMilli(), d, where);
  }

  @Test
  void shouldNotRelyOnAvroEqualsWhichCannotCompareAVictimsRetryInstant() {
    // the reason for Replay.same: Avro's equals throws on this very record
    assertThatThrownBy(() -> decision(T15.plusSeconds(3600)).equals(
        decision(T15.plusSeconds(3600)))).hasMessageContaining("Unknown datum type");
  }

  @Test
  void shouldMatchEqualDecisionsWhoseVictimsCarryARetryInstant() {
    Instant retry = Instant.parse("2026-11-03T00:00:00Z");

    assertThat(Replay.compare(List.of(at(decision(retry), "0@4")),
        List.of(at(decision(retry), "-")))).isEmpty();
  }

  @Test
  void shouldReportTheVictimsFieldWhenOnlyTheRetryInstantDiffers() {
    List<Replay.Mismatch> m = Replay.compare(
        List.of(at(decision(Instant.parse("2026-11-03T00:00:00Z")), "0@4")),
        List.of(at(decision(Instant.parse("2026-11-04T00:00:00Z")), "-")));

    assertThat(m).singleElement().satisfies(x -> {
      assertThat(x.kind()).isEqualTo(Replay.Kind.DIFFERS);
      assertThat(x.where()).isEqualTo("0@4");
      assertThat(x.differences()).singleElement().asString().startsWith("victims: recorded ")
          .contains("2026-11-03T00:00:00Z").contains("2026-11-04T00:00:00Z");
    });
  }
}
