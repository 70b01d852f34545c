package io.tideline.cli;

import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tideline queue}: who is waiting, where, and when each should start. */
@Command(name = "queue", description = "Show waiting jobs by lane and position (placement.queue).")
final class QueueCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Option(names = "--cluster", description = "Only this cluster")
  String cluster;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    Map<String, Object> latest = new LinkedHashMap<>();
    for (var e : TopicReader.readAll(connection.clientProperties(), TopicCatalogue.PLACEMENT_QUEUE,
        AvroSerdes.valueDeserializer(connection.genericSerde()))) {
      if (e.value() == null) {
        latest.remove(e.key());
      } else if (e.error() == null) {
        latest.put(e.key(), e.value());
      }
    }
    var rows = latest.values().stream()
        .filter(v -> cluster == null || cluster.equals(Render.text(v, "cluster")))
        .sorted(Comparator.comparing((Object v) -> Render.text(v, "lane"))
            .thenComparingInt(v -> (Integer) Render.field(v, "position")))
        .toList();
    out.printf("%-10s %-8s %-24s %-22s %s%n", "LANE", "POSITION", "JOB", "ESTIMATED START", "BASIS");
    for (Object v : rows) {
      out.printf("%-10s %-8s %-24s %-22s %s%n", Render.text(v, "lane"), Render.field(v, "position"),
          Render.text(v, "jobId"), String.valueOf(Render.instant(v, "estimatedStart")),
          Render.text(v, "estimateBasis"));
    }
    if (rows.isEmpty()) {
      out.println("(nobody is waiting)");
    }
    return 0;
  }
}
