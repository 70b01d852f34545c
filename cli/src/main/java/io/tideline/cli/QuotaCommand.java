package io.tideline.cli;

import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tideline quota TENANT}: the tenant's queues, guarantees, caps and use (quota.state). */
@Command(name = "quota", description = "Show a tenant's quota state per queue (quota.state).")
final class QuotaCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", description = "Tenant")
  String tenant;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    Map<String, Object> latest = new TreeMap<>();
    for (var e : TopicReader.readAll(connection.clientProperties(), TopicCatalogue.QUOTA_STATE,
        AvroSerdes.valueDeserializer(connection.genericSerde()))) {
      if (e.value() == null) {
        latest.remove(e.key());
      } else if (e.error() == null && tenant.equals(Render.text(e.value(), "tenant"))) {
        latest.put(e.key(), e.value());
      }
    }
    if (latest.isEmpty()) {
      out.println("no quota state for tenant " + tenant);
      return 1;
    }
    out.printf("%-36s %-19s %10s %10s %10s %10s %12s%n", "QUEUE", "SEGMENT", "GUARANTEE",
        "BORROW CAP", "USED GUAR.", "BORROWED", "FAIR SHARE");
    for (Object v : latest.values()) {
      out.printf("%-36s %-19s %10.2f %10.2f %10.2f %10.2f %12.2f%n", Render.text(v, "queue"),
          Render.text(v, "segment"), Render.field(v, "guaranteedGpus"), Render.field(v, "borrowCapGpus"),
          Render.field(v, "usedGuaranteedGpus"), Render.field(v, "usedBorrowedGpus"),
          Render.field(v, "fairShareUsage"));
    }
    return 0;
  }
}
