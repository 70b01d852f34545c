package io.tideline.cli;

import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.common.serialization.Deserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tideline jobs --user U}: a user's jobs with their latest verdict and lifecycle state. */
@Command(name = "jobs", description = "List a user's jobs with their latest verdict and state.")
final class JobsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Option(names = "--user", required = true, description = "Owner of the jobs")
  String user;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    Properties client = connection.clientProperties();
    Deserializer<Object> values = AvroSerdes.valueDeserializer(connection.genericSerde());
    Map<String, Object> jobs = new LinkedHashMap<>();
    for (var e : TopicReader.readAll(client, TopicCatalogue.JOBS_SUBMITTED, values)) {
      if (e.error() == null && user.equals(Render.text(e.value(), "user"))) {
        jobs.put(Render.text(e.value(), "jobId"), e.value());
      }
    }
    Map<String, String> verdicts = latest(client, values, TopicCatalogue.QUOTA_VERDICTS, "verdict", jobs);
    Map<String, String> states = latest(client, values, TopicCatalogue.JOBS_LIFECYCLE, "type", jobs);
    out.printf("%-24s %-22s %-20s %5s %-10s %-10s%n", "JOB", "SUBMITTED", "CLASS", "GPUS", "VERDICT", "STATE");
    for (var j : jobs.entrySet()) {
      Object v = j.getValue();
      out.printf("%-24s %-22s %-20s %5s %-10s %-10s%n", j.getKey(),
          Render.instant(v, "submittedAt"), Render.text(v, "workloadClass"),
          Render.text(Render.field(v, "resources"), "gpuCount"),
          verdicts.getOrDefault(j.getKey(), "-"), states.getOrDefault(j.getKey(), "WAITING"));
    }
    if (jobs.isEmpty()) {
      out.println("no jobs for user " + user);
    }
    return 0;
  }

  private static Map<String, String> latest(Properties client, Deserializer<Object> values,
      String topic, String field, Map<String, Object> jobs) {
    Map<String, String> out = new HashMap<>();
    try {
      for (var e : TopicReader.readAll(client, topic, values)) {
        String id = Render.text(e.value(), "jobId");
        if (id != null && jobs.containsKey(id)) {
          out.put(id, Render.text(e.value(), field));
        }
      }
    } catch (IllegalArgumentException missingTopic) {
      // nothing decided yet
    }
    return out;
  }
}
