package io.tideline.cli;

import io.tideline.platform.serde.AvroSerdes;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tideline tail TOPIC}: the topic's records, decoded and human-readable. */
@Command(name = "tail", description = "Print a topic's last records, decoded through the registry.")
final class TailCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", description = "Topic, e.g. placement.decisions or jobs.submitted.dlq")
  String topic;

  @Option(names = {"-n", "--last"}, defaultValue = "20", description = "How many records (default ${DEFAULT-VALUE}; 0 = all)")
  int last;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    List<TopicReader.Entry> all = TopicReader.readAll(connection.clientProperties(), topic,
        AvroSerdes.valueDeserializer(connection.genericSerde()));
    List<TopicReader.Entry> shown = last > 0 && all.size() > last ? all.subList(all.size() - last, all.size()) : all;
    for (TopicReader.Entry e : shown) {
      out.printf("%s %s-%d@%d key=%s %s%n", Instant.ofEpochMilli(e.timestamp()), e.raw().topic(),
          e.raw().partition(), e.raw().offset(), e.key(),
          e.error() != null ? "<undecodable: " + e.error() + ">"
              : e.value() == null ? "<tombstone>" : Render.json(e.value()));
    }
    if (all.isEmpty()) {
      out.println("(" + topic + " is empty)");
    }
    return 0;
  }
}
