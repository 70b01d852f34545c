package io.tideline.telemetry.publish;

import io.tideline.platform.security.Identity;
import io.tideline.platform.security.ProducerStamp;
import io.smallrye.common.annotation.Identifier;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.NodeInventory;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.telemetry.TelemetryConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The one producer of gpu-telemetry-svc, writing Avro (Confluent wire format, schemas from the
 * registry) to gpu.telemetry.batches (key nodeId) and/or gpu.telemetry (key gpuId) as
 * {@code tideline.telemetry.format} says (ADR 0040), cluster.inventory (key nodeId) and
 * cluster.clock (key cluster). Tuned for throughput with the publish benchmark: lz4 batches of up to 512 KiB,
 * 20 ms linger, acks=all with idempotence (a retried batch cannot duplicate samples or reorder a
 * GPU's samples within its partition).
 */
@ApplicationScoped
public class TelemetryProducer {

  private final KafkaProducer<String, SpecificRecord> producer;
  private final TelemetryConfig.Format format;
  private final int maxPerBatch;

  public TelemetryProducer(TidelineConfig tideline, TelemetryConfig config, IntakeConfig intake,
      AvroSerdes serdes, @Identifier("default-kafka-broker") Map<String, Object> kafka) {
    this.format = config.format();
    this.maxPerBatch = intake.maxGpusPerNode(); // what every consumer accepts in one batch
    Map<String, Object> p = properties(kafka, config.producer());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, tideline.service() + "-telemetry");
    ProducerStamp.configure(p, Identity.TELEMETRY.user()); // ADR 0029
    this.producer = new KafkaProducer<>(p, new StringSerializer(), serdes.valueSerializer());
  }

  /** Producer properties for the publish path; shared with the benchmark so it measures these. */
  public static Map<String, Object> properties(Map<String, Object> base, TelemetryConfig.Producer c) {
    return properties(base, c.acks(), c.lingerMs(), c.batchSize(), c.compressionType());
  }

  public static Map<String, Object> properties(Map<String, Object> base, String acks, int lingerMs,
      int batchSize, String compression) {
    Map<String, Object> p = new HashMap<>(base);
    p.put(ProducerConfig.ACKS_CONFIG, acks);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "all".equals(acks) || "-1".equals(acks));
    p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, batchSize);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    return p;
  }

  /** A producer for tools outside the app (the benchmark). */
  public static KafkaProducer<String, SpecificRecord> create(Map<String, Object> properties,
      Serializer<SpecificRecord> valueSerializer) {
    return new KafkaProducer<>(properties, new StringSerializer(), valueSerializer);
  }

  /**
   * Publishes a round's samples as {@code tideline.telemetry.format} says and waits until the
   * broker has them all: one batch per node on {@code gpu.telemetry.batches} (key nodeId), one
   * sample per GPU on {@code gpu.telemetry} (key gpuId), or both (ADR 0040).
   */
  public void samples(List<GpuSample> samples) {
    sendAll(records(samples, format, maxPerBatch));
  }

  /** The records a round's samples are in {@code format}; shared with the benchmark. */
  public static List<ProducerRecord<String, SpecificRecord>> records(List<GpuSample> samples,
      TelemetryConfig.Format format, int maxPerBatch) {
    List<ProducerRecord<String, SpecificRecord>> out = new ArrayList<>();
    if (format != TelemetryConfig.Format.SAMPLE) {
      for (GpuSampleBatch b : SampleBatches.ofScrape(samples, maxPerBatch)) {
        out.add(new ProducerRecord<>(TopicCatalogue.GPU_TELEMETRY_BATCHES, b.getNodeId(), b));
      }
    }
    if (format != TelemetryConfig.Format.BATCH) {
      for (GpuSample s : samples) {
        out.add(new ProducerRecord<>(TopicCatalogue.GPU_TELEMETRY, s.getGpuId(), s));
      }
    }
    return out;
  }

  /** Sends node events keyed by nodeId and waits for them. */
  public void inventory(List<NodeInventory> changes) {
    sendAll(changes.stream().map(n -> new ProducerRecord<String, SpecificRecord>(
        TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), n)).toList());
  }

  /** Sends clock ticks keyed by cluster and waits for them. */
  public void ticks(List<ClockTick> ticks) {
    sendAll(ticks.stream().map(t -> new ProducerRecord<String, SpecificRecord>(
        TopicCatalogue.CLUSTER_CLOCK, t.getCluster(), t)).toList());
  }

  private void sendAll(List<ProducerRecord<String, SpecificRecord>> records) {
    if (records.isEmpty()) {
      return;
    }
    Future<?>[] sent = new Future<?>[records.size()];
    for (int i = 0; i < sent.length; i++) {
      sent[i] = producer.send(records.get(i));
    }
    producer.flush();
    for (Future<?> f : sent) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while publishing", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("publish failed: " + e.getCause(), e.getCause());
      }
    }
  }

  @PreDestroy
  void close() {
    producer.close();
  }
}
