package io.tideline.cli;

import io.tideline.platform.security.Identity;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tideline submit job.yaml}: validate a job against the contract and submit it as an event. */
@Command(name = "submit", description = "Validate a job file and publish it on jobs.submitted.")
final class SubmitCommand implements Callable<Integer> {

  /** Exit code of an invalid job file. */
  static final int INVALID = 2;

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", description = "The job file (YAML, fields as in JobSubmitted.avsc)")
  Path file;

  @Option(names = "--dry-run", description = "Validate only; publish nothing")
  boolean dryRun;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    if (!Files.isRegularFile(file)) {
      err.println("tideline: no such file: " + file);
      return INVALID;
    }
    // The CLI is an adapter: it may read the wall clock to stamp a submission without a time.
    JobYaml.Parsed parsed = JobYaml.parse(Files.readString(file), Instant.now());
    if (!parsed.ok()) {
      err.println(file + " is not a valid job:");
      parsed.errors().forEach(e -> err.println("  " + e));
      return INVALID;
    }
    JobSubmitted job = parsed.job();
    if (dryRun) {
      out.println(file + " is valid: " + Render.json(job));
      return 0;
    }
    Properties p = connection.clientProperties();
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // a submission is written by the users' role, whoever runs the CLI (ADR 0029)
    Map<String, Object> stamp = new HashMap<>();
    ProducerStamp.configure(stamp, Identity.SUBMITTER.user());
    p.putAll(stamp);
    try (var producer = new KafkaProducer<String, JobSubmitted>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(connection.specificSerde()))) {
      var meta = producer.send(new ProducerRecord<>(TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), job))
          .get(30, TimeUnit.SECONDS);
      out.printf("submitted %s (%s, %d GPU%s) to %s-%d@%d%n", job.getJobId(), job.getWorkloadClass(),
          job.getResources().getGpuCount(), job.getResources().getGpuCount() == 1 ? "" : "s",
          meta.topic(), meta.partition(), meta.offset());
    }
    return 0;
  }
}
