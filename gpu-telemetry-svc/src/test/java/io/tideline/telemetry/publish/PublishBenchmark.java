package io.tideline.telemetry.publish;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.telemetry.TelemetryConfig;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.SchemaRegistryServer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Benchmark (not a test: its name does not end in Test, so Surefire never runs it) of the publish
 * path: GpuSample → Apicurio Avro serializer (Confluent wire format, schema id cached after the
 * first record) → KafkaProducer → a real KRaft broker in this JVM, keyed by gpuId over 6 partitions
 * like gpu.telemetry. Keys are the 6,776 GPUs of the 847-host topology (8 per host).
 *
 * <p>Each producer setting gets a warm-up (the first a longer one, for the JIT), then
 * {@value #REPS} timed runs of {@code samples} records, interleaved across settings, each from the
 * first send to the acknowledgement of the last (flush); the median run is reported with the
 * range. Run (from {@code gpu-telemetry-svc/}):
 *
 * <pre>
 * ../mvnw -q test-compile &amp;&amp; java -Xmx1g -cp "target/test-classes:target/classes:$(../mvnw -q \
 *   dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)" \
 *   io.tideline.telemetry.publish.PublishBenchmark [samples, default 300000]
 * </pre>
 *
 * <p>{@code PublishBenchmark formats [samples]} (ADR 0040) compares, with the chosen producer
 * setting, the two formats of {@code tideline.telemetry.format} on the same scrapes of the fleet:
 * {@code SAMPLE} (one {@code GpuSample} per GPU, key gpuId) and {@code BATCH} (one
 * {@code GpuSampleBatch} per node, key nodeId), through {@link TelemetryProducer#records} as the
 * service publishes a round; both in GPU-samples/s, runs interleaved.
 */
public final class PublishBenchmark {

  record Setting(String name, String acks, int lingerMs, int batchSize, String compression) {}

  static final List<Setting> SETTINGS = List.of(
      new Setting("client defaults (acks=all, linger 5ms, 16 KiB, none)", "all", 5, 16_384, "none"),
      new Setting("acks=1, linger 10ms, 256 KiB, lz4", "1", 10, 262_144, "lz4"),
      new Setting("acks=all, linger 10ms, 256 KiB, lz4", "all", 10, 262_144, "lz4"),
      new Setting("CHOSEN acks=all, linger 20ms, 512 KiB, lz4", "all", 20, 524_288, "lz4"),
      new Setting("acks=all, linger 50ms, 1 MiB, lz4", "all", 50, 1_048_576, "lz4"),
      new Setting("acks=all, linger 20ms, 512 KiB, zstd", "all", 20, 524_288, "zstd"));

  static final int REPS = 5;

  public static void main(String[] args) throws Exception {
    // Logging as the service has it (Quarkus: JBoss LogManager, Kafka at WARN). Unconfigured, the
    // JBoss slf4j binding reports TRACE enabled and the producer formats every record with
    // toString() for a trace line (ADR 0040's profile: 65% of the publishing thread).
    if (!Boolean.getBoolean("bench.trace")) {
      System.setProperty("java.util.logging.manager", "org.jboss.logmanager.LogManager");
      for (String category : new String[] {"", "org.apache.kafka", "kafka", "io.apicurio"}) {
        java.util.logging.Logger.getLogger(category).setLevel(java.util.logging.Level.WARNING);
      }
    }
    if (args.length > 0 && args[0].equals("formats")) {
      formats(args.length > 1 ? Integer.parseInt(args[1]) : 300_000);
      return;
    }
    int samples = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    int warmup = Math.max(50_000, samples / 3);
    System.out.printf("starting a KRaft broker in this JVM and the Apicurio registry...%n");
    try (KafkaBroker broker = KafkaBroker.startInJvm();
        SchemaRegistryServer registry = SchemaRegistryServer.start()) {
      Map<String, Object> serde = AvroSerdes.serdeConfig(registry.url(), true);
      List<GpuSample> gpus = fleet();
      int n = SETTINGS.size();
      List<KafkaProducer<String, SpecificRecord>> producers = new ArrayList<>();
      List<String> topics = new ArrayList<>();
      try {
        // 1. one producer and topic per setting, each warmed up (the first also warms the JVM).
        for (Setting s : SETTINGS) {
          String topic = KafkaBroker.unique("bench.gpu.telemetry");
          broker.createTopics(topic + ":6");
          Map<String, Object> props = TelemetryProducer.properties(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
              s.acks(), s.lingerMs(), s.batchSize(), s.compression());
          Serializer<SpecificRecord> value = AvroSerdes.valueSerializer(serde);
          KafkaProducer<String, SpecificRecord> producer = TelemetryProducer.create(props, value);
          producers.add(producer);
          topics.add(topic);
          run(producer, topic, gpus, producers.size() == 1 ? 4 * warmup : warmup);
        }
        System.out.printf("%d samples per run, %d runs per setting interleaved, %d GPUs, %d cores%n",
            samples, REPS, gpus.size(), Runtime.getRuntime().availableProcessors());
        // 2. interleave the runs (rep by rep across settings) so a burst of load from other
        //    processes on the machine falls on every setting alike.
        double[][] rates = new double[n][REPS];
        double[][] mbs = new double[n][REPS];
        for (int r = 0; r < REPS; r++) {
          for (int i = 0; i < n; i++) {
            long bytesBefore = sentBytes(producers.get(i));
            long t0 = System.nanoTime();
            run(producers.get(i), topics.get(i), gpus, samples);
            double secs = (System.nanoTime() - t0) / 1e9;
            rates[i][r] = samples / secs;
            mbs[i][r] = (sentBytes(producers.get(i)) - bytesBefore) / 1e6 / secs;
          }
        }
        // 3. the median run of each setting, with the range and bytes per sample on the wire.
        System.out.printf("%n%-56s %12s %21s %10s %9s%n", "producer setting", "median/s",
            "(min - max)", "MB/s out", "B/sample");
        for (int i = 0; i < n; i++) {
          double[] sorted = rates[i].clone();
          java.util.Arrays.sort(sorted);
          double median = sorted[REPS / 2];
          int at = indexOf(rates[i], median);
          System.out.printf("%-56s %,12.0f %,10.0f - %,8.0f %10.1f %9.0f%n", SETTINGS.get(i).name(),
              median, sorted[0], sorted[REPS - 1], mbs[i][at], mbs[i][at] * 1e6 / median);
        }
      } finally {
        producers.forEach(KafkaProducer::close);
      }
    }
  }

  /** SAMPLE vs BATCH with the chosen setting (see the class comment). */
  static void formats(int samples) throws Exception {
    Setting chosen = SETTINGS.get(3);
    List<TelemetryConfig.Format> formats = List.of(TelemetryConfig.Format.SAMPLE,
        TelemetryConfig.Format.BATCH);
    int warmup = Math.max(50_000, samples / 3);
    System.out.printf("starting a KRaft broker in this JVM and the Apicurio registry...%n");
    try (KafkaBroker broker = KafkaBroker.startInJvm();
        SchemaRegistryServer registry = SchemaRegistryServer.start()) {
      Map<String, Object> serde = AvroSerdes.serdeConfig(registry.url(), true);
      List<GpuSample> gpus = fleet();
      List<KafkaProducer<String, SpecificRecord>> producers = new ArrayList<>();
      List<String> topics = new ArrayList<>();
      try {
        for (TelemetryConfig.Format f : formats) {
          String topic = KafkaBroker.unique("bench.gpu.telemetry." + f.name().toLowerCase());
          broker.createTopics(topic + ":6");
          Map<String, Object> props = TelemetryProducer.properties(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
              chosen.acks(), chosen.lingerMs(), chosen.batchSize(), chosen.compression());
          KafkaProducer<String, SpecificRecord> producer =
              TelemetryProducer.create(props, AvroSerdes.valueSerializer(serde));
          producers.add(producer);
          topics.add(topic);
          scrapes(producer, topic, gpus, f, producers.size() == 1 ? 4 * warmup : warmup);
        }
        System.out.printf("%s; %d GPU-samples per run, %d runs per format interleaved, %d GPUs"
            + " on 8-GPU nodes, %d cores%n", chosen.name(), samples, REPS, gpus.size(),
            Runtime.getRuntime().availableProcessors());
        double[][] rates = new double[formats.size()][REPS];
        double[][] mbs = new double[formats.size()][REPS];
        for (int r = 0; r < REPS; r++) {
          for (int i = 0; i < formats.size(); i++) {
            long bytesBefore = sentBytes(producers.get(i));
            long t0 = System.nanoTime();
            int sent = scrapes(producers.get(i), topics.get(i), gpus, formats.get(i), samples);
            double secs = (System.nanoTime() - t0) / 1e9;
            rates[i][r] = sent / secs;
            mbs[i][r] = (sentBytes(producers.get(i)) - bytesBefore) / 1e6 / secs;
          }
        }
        System.out.printf("%n%-10s %16s %21s %10s %13s%n", "format", "GPU-samples/s",
            "(min - max)", "MB/s out", "B/GPU-sample");
        for (int i = 0; i < formats.size(); i++) {
          double[] sorted = rates[i].clone();
          java.util.Arrays.sort(sorted);
          double median = sorted[REPS / 2];
          int at = indexOf(rates[i], median);
          System.out.printf("%-10s %,16.0f %,10.0f - %,8.0f %10.1f %13.0f%n", formats.get(i),
              median, sorted[0], sorted[REPS - 1], mbs[i][at], mbs[i][at] * 1e6 / median);
        }
      } finally {
        producers.forEach(KafkaProducer::close);
      }
    }
  }

  /**
   * Publishes whole scrapes of the fleet (every 10 s of event time) in {@code format} until at
   * least {@code n} GPU-samples are sent, waits for every acknowledgement; returns the
   * GPU-samples sent.
   */
  static int scrapes(KafkaProducer<String, SpecificRecord> producer, String topic,
      List<GpuSample> gpus, TelemetryConfig.Format format, int n) {
    AtomicLong failed = new AtomicLong();
    long base = Instant.parse("2026-11-02T09:00:00Z").toEpochMilli();
    int sent = 0;
    for (int k = 0; sent < n; k++) {
      Instant at = Instant.ofEpochMilli(base + k * 10_000L);
      for (int i = 0; i < gpus.size(); i++) {
        GpuSample g = gpus.get(i);
        g.setSampledAt(at);
        g.setUtilizationPct((double) ((i + k) % 101));
      }
      for (ProducerRecord<String, SpecificRecord> r : TelemetryProducer.records(gpus, format, 64)) {
        producer.send(new ProducerRecord<>(topic, r.key(), r.value()), (md, e) -> {
          if (e != null) {
            failed.incrementAndGet();
          }
        });
      }
      sent += gpus.size();
    }
    producer.flush();
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " sends failed");
    }
    return sent;
  }

  static int indexOf(double[] a, double v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return 0;
  }

  /** Sends {@code n} samples round-robin over the fleet and waits for every acknowledgement. */
  static void run(KafkaProducer<String, SpecificRecord> producer, String topic, List<GpuSample> gpus,
      int n) {
    AtomicLong failed = new AtomicLong();
    java.util.concurrent.atomic.AtomicReference<Exception> first = new java.util.concurrent.atomic.AtomicReference<>();
    long base = Instant.parse("2026-11-02T09:00:00Z").toEpochMilli();
    for (int i = 0; i < n; i++) {
      GpuSample g = gpus.get(i % gpus.size());
      // The serializer runs inside send(), so mutating the record for the next send is safe.
      g.setSampledAt(Instant.ofEpochMilli(base + (i / gpus.size()) * 10_000L));
      g.setUtilizationPct((double) (i % 101));
      producer.send(new ProducerRecord<>(topic, g.getGpuId(), g), (md, e) -> {
        if (e != null) {
          failed.incrementAndGet();
          first.compareAndSet(null, e);
        }
      });
    }
    producer.flush();
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " sends failed, first: " + first.get(), first.get());
    }
  }

  static long sentBytes(KafkaProducer<?, ?> producer) {
    return producer.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals("outgoing-byte-total")
            && e.getKey().group().equals("producer-metrics"))
        .mapToLong(e -> ((Number) e.getValue().metricValue()).longValue()).sum();
  }

  public static List<GpuSample> fleet() {
    List<GpuSample> out = new ArrayList<>();
    for (int node = 0; node < 847; node++) {
      for (int gpu = 0; gpu < 8; gpu++) {
        out.add(GpuSample.newBuilder()
            .setGpuId(String.format("GPU-%08x-%04x-4000-8000-%012x", node, gpu, node * 8L + gpu))
            .setCluster("default")
            .setNodeId(String.format("host-%04d", node))
            .setGpuIndex(gpu)
            .setModel("NVIDIA H100 80GB HBM3")
            .setSampledAt(Instant.EPOCH)
            .setState(SampleState.OK)
            .setUtilizationPct(0.0)
            .setMemoryUsedMiB(40_960.0)
            .setMemoryFreeMiB(40_599.0)
            .setPowerWatts(412.5)
            .setTemperatureC(61.0)
            .setNamespace(gpu < 4 ? "inference" : "training")
            .setPod(gpu < 4 ? "llama-3-70b-7577f87fc7-dhb97" : "pretrain-42-worker-" + node)
            .setContainer("main")
            .setJobId(gpu < 4 ? null : "pretrain-42")
            .setServiceId(gpu < 4 ? "llama-3-70b" : null)
            .setSource(SampleSource.DCGM)
            .build());
      }
    }
    return out;
  }
}
