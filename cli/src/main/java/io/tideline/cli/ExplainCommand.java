package io.tideline.cli;

import io.tideline.platform.explain.DecisionTrail;
import io.tideline.platform.serde.AvroSerdes;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.common.serialization.Deserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tideline explain JOB}: the job's whole decision trail in time order — its submission (or
 * dead letter), quota verdicts, placements and queue positions, the reservations of its service,
 * preemption requests and decisions it was part of (as preemptor or victim) with their rule
 * traces, evictions, lifecycle facts and the notices sent about it. Which records belong to the
 * trail and how each is summed up is {@link DecisionTrail}'s, shared with the console's job page.
 */
@Command(name = "explain", description = "Show every decision about a job, with its rule traces.")
final class ExplainCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", description = "Job id")
  String jobId;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Properties client = connection.clientProperties();
    Deserializer<Object> values = AvroSerdes.valueDeserializer(connection.genericSerde());
    List<DecisionTrail.Entry> read = new ArrayList<>();
    for (String topic : DecisionTrail.TOPICS) {
      try {
        for (TopicReader.Entry e : TopicReader.readAll(client, topic, values)) {
          read.add(new DecisionTrail.Entry(topic, e.key(), e.timestamp(), e.value(), e.error()));
        }
      } catch (IllegalArgumentException missingTopic) {
        // a topic not created yet holds no trail
      }
    }
    List<DecisionTrail.Line> trail = DecisionTrail.of(jobId, read);
    if (trail.isEmpty()) {
      out.println("no record mentions job " + jobId);
      return 1;
    }
    out.println("Decision trail of " + jobId + " (" + trail.size() + " records)");
    for (DecisionTrail.Line line : trail) {
      out.printf("%s  %-22s %s%n", line.at(), line.entry().topic(), line.summary());
      for (DecisionTrail.Step step : line.trace()) {
        out.printf("%26s  %-14s %-12s %-10s %s%n", "", step.subject(), step.rule(), step.outcome(),
            step.detail());
      }
    }
    return 0;
  }
}
