package io.tideline.telemetry.collect.dcgm;

import io.tideline.telemetry.collect.Attributor;
import io.tideline.telemetry.collect.SampleSource;
import io.tideline.telemetry.collect.TargetReading;
import io.tideline.telemetry.collect.prom.PromParseResult;
import io.tideline.telemetry.collect.prom.PromTextParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Scrapes dcgm-exporter's Prometheus endpoint on each node (on Kubernetes: the exporter DaemonSet,
 * port 9400, path {@code /metrics}). A target that does not answer 200 within the timeout is a
 * failed read, which the {@link io.tideline.telemetry.collect.StaleTracker} turns into STALE
 * samples for that node's GPUs. Malformed lines are skipped and counted, never fatal.
 */
public final class DcgmScrapeSource implements SampleSource {

  private static final Logger LOG = Logger.getLogger(DcgmScrapeSource.class);

  /** One exporter endpoint, and the node it speaks for (null: use its Hostname label). */
  public record Target(String nodeId, URI url) {

    /** Parses {@code nodeId=url} or a bare {@code url}. */
    public static Target parse(String spec) {
      String s = spec.strip();
      int eq = s.indexOf('=');
      int scheme = s.indexOf("://");
      if (eq > 0 && (scheme < 0 || eq < scheme)) {
        return new Target(s.substring(0, eq).strip(), URI.create(s.substring(eq + 1).strip()));
      }
      return new Target(null, URI.create(s));
    }

    String name() {
      return url.toString();
    }
  }

  private final String cluster;
  private final List<Target> targets;
  private final Duration timeout;
  private final Attributor attributor;
  private final HttpClient http;

  public DcgmScrapeSource(String cluster, List<Target> targets, Duration timeout,
      Attributor attributor) {
    this.cluster = cluster;
    this.targets = List.copyOf(targets);
    this.timeout = timeout;
    this.attributor = attributor;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public io.tideline.events.SampleSource kind() {
    return io.tideline.events.SampleSource.DCGM;
  }

  @Override
  public List<TargetReading> collect(Instant now) {
    List<TargetReading> out = new ArrayList<>(targets.size());
    for (Target t : targets) {
      out.add(scrape(t, now));
    }
    return out;
  }

  TargetReading scrape(Target t, Instant now) {
    String body;
    try {
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(t.url()).timeout(timeout).header("Accept", "text/plain").GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return TargetReading.failed(t.name(), "HTTP " + response.statusCode() + " from " + t.url());
      }
      body = response.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return TargetReading.failed(t.name(), "interrupted");
    } catch (Exception e) {
      return TargetReading.failed(t.name(), e.getClass().getSimpleName() + " from " + t.url()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
    PromParseResult parsed = PromTextParser.parse(body);
    for (PromParseResult.Malformed m : parsed.malformed()) {
      LOG.debugf("skipped line %d of %s: %s", m.lineNumber(), t.url(), m.reason());
    }
    DcgmMapper.Mapped mapped = DcgmMapper.map(parsed.samples(), cluster, t.nodeId(),
        t.url().getHost(), now, attributor);
    return TargetReading.ok(t.name(), mapped.samples(), parsed.malformed().size() + mapped.unusable());
  }
}
