package io.tideline.telemetry.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.telemetry.TelemetryConfig.Format;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** {@code tideline.telemetry.format}: what one scrape of two nodes is published as (ADR 0040). */
class TelemetryFormatTest {

  static final Instant AT = Instant.parse("2026-11-02T09:00:10Z");

  /** Two nodes of four GPUs, read as a DCGM round reads them. */
  static List<GpuSample> scrape() {
    List<GpuSample> out = new ArrayList<>();
    for (String node : List.of("n1", "n2")) {
      for (int g = 0; g < 4; g++) {
        out.add(GpuSample.newBuilder().setGpuId(node + "/" + g).setCluster("default")
            .setNodeId(node).setGpuIndex(g).setSampledAt(AT).setState(SampleState.OK)
            .setUtilizationPct(10.0 * g).setSource(SampleSource.DCGM).build());
      }
    }
    return out;
  }

  @Test
  void shouldPublishOneBatchPerNodeKeyedByNodeByDefault() {
    List<ProducerRecord<String, SpecificRecord>> records =
        TelemetryProducer.records(scrape(), Format.BATCH, 64);

    assertThat(records).extracting(ProducerRecord::topic)
        .containsOnly(TopicCatalogue.GPU_TELEMETRY_BATCHES);
    assertThat(records).extracting(ProducerRecord::key).containsExactly("n1", "n2");
    assertThat(records.stream().flatMap(r -> SampleBatches.samples((GpuSampleBatch) r.value())
        .stream()).toList()).isEqualTo(scrape());
  }

  @Test
  void shouldPublishOneSamplePerGpuKeyedByGpuForOldConsumers() {
    List<ProducerRecord<String, SpecificRecord>> records =
        TelemetryProducer.records(scrape(), Format.SAMPLE, 64);

    assertThat(records).extracting(ProducerRecord::topic)
        .containsOnly(TopicCatalogue.GPU_TELEMETRY);
    assertThat(records).extracting(ProducerRecord::value).isEqualTo(new ArrayList<>(scrape()));
  }

  @Test
  void shouldPublishBothDuringARollingUpgrade() {
    List<ProducerRecord<String, SpecificRecord>> records =
        TelemetryProducer.records(scrape(), Format.BOTH, 64);

    assertThat(records).filteredOn(r -> r.topic().equals(TopicCatalogue.GPU_TELEMETRY_BATCHES))
        .hasSize(2);
    assertThat(records).filteredOn(r -> r.topic().equals(TopicCatalogue.GPU_TELEMETRY))
        .hasSize(8);
  }
}
