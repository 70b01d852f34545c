package io.tideline.console;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.qute.TemplateInstance;
import io.tideline.console.view.ConsoleState;
import io.tideline.console.view.FragmentationView;
import io.tideline.console.view.TideView;
import io.tideline.events.Lane;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console's pages: thin — each reads one view of the folded state under its lock and renders
 * a template. Lists are cut into pages here ({@code ?page=}); nothing is computed per request that
 * grows with the events folded beyond the page shown.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public class ConsoleResource {

  private static final int CHART_WIDTH = 900;
  private static final int CHART_HEIGHT = 180;

  private final ConsoleFeed feed;
  private final ConsoleConfig config;

  @Location("tide.html") Template tide;
  @Location("queues.html") Template queues;
  @Location("preemptions.html") Template preemptions;
  @Location("job.html") Template job;
  @Location("quota.html") Template quota;
  @Location("fragmentation.html") Template fragmentation;

  public ConsoleResource(ConsoleFeed feed, ConsoleConfig config) {
    this.feed = feed;
    this.config = config;
  }

  @GET
  public String index() {
    return tidePage();
  }

  @GET
  @Path("tide")
  public String tidePage() {
    return feed.read(s -> {
      List<TideView.Point> series = s.tide().series();
      List<String> x = series.stream().map(p -> Formats.hm(p.at())).toList();
      String chart = Chart.svg(CHART_WIDTH, CHART_HEIGHT, x, List.of(
          new Chart.Series("online", "#1f77b4", series.stream().map(TideView.Point::online).toList()),
          new Chart.Series("reserved ahead", "#ff7f0e",
              series.stream().map(TideView.Point::reserved).toList()),
          new Chart.Series("training/batch", "#2ca02c",
              series.stream().map(TideView.Point::trainingBatch).toList()),
          new Chart.Series("idle", "#7f7f7f", series.stream().map(TideView.Point::idle).toList())));
      return page(tide, s, "tide")
          .data("now", s.tide().now())
          .data("chart", chart)
          .data("forecasts", s.tide().forecastVsActual(config.forecastPastSlots(),
              config.forecastNextSlots()))
          .render();
    });
  }

  @GET
  @Path("queues")
  public String queuesPage(@QueryParam("lane") @DefaultValue("TRAINING") String lane,
      @QueryParam("page") @DefaultValue("1") int page) {
    Lane l = lane(lane);
    return feed.read(s -> page(queues, s, "queues")
        .data("lane", l.name())
        .data("query", "lane=" + l.name() + "&")
        .data("lanes", s.queues().lengths().entrySet().stream()
            .map(e -> Map.of("name", e.getKey().name(), "count", e.getValue())).toList())
        .data("rows", s.queues().lane(l, page, config.pageSize()))
        .render());
  }

  @GET
  @Path("preemptions")
  public String preemptionsPage(@QueryParam("page") @DefaultValue("1") int page,
      @QueryParam("applied") @DefaultValue("false") boolean appliedOnly) {
    return feed.read(s -> page(preemptions, s, "preemptions")
        .data("appliedOnly", appliedOnly)
        .data("query", appliedOnly ? "applied=true&" : "")
        .data("applied", s.preemptions().applied())
        .data("refused", s.preemptions().refused())
        .data("rows", s.preemptions().page(page, config.pageSize(), appliedOnly))
        .render());
  }

  @GET
  @Path("jobs/{id: .+}")
  public String jobPage(@PathParam("id") String jobId) {
    return feed.read(s -> {
      var trail = s.trails().trail(jobId);
      if (trail.isEmpty()) {
        throw new NotFoundException("no record names job " + jobId);
      }
      return page(job, s, "preemptions")
          .data("jobId", jobId)
          .data("trail", trail)
          .data("decisions", s.preemptions().ofJob(jobId))
          .render();
    });
  }

  @GET
  @Path("quota")
  public String quotaPage(@QueryParam("page") @DefaultValue("1") int page) {
    return feed.read(s -> page(quota, s, "quota")
        .data("tree", s.quota().tree())
        .data("bills", s.quota().bills(page, config.pageSize()))
        .render());
  }

  @GET
  @Path("fragmentation")
  public String fragmentationPage(@QueryParam("page") @DefaultValue("1") int page) {
    return feed.read(s -> {
      List<FragmentationView.Point> series = s.fragmentation().series();
      String chart = Chart.svg(CHART_WIDTH, CHART_HEIGHT,
          series.stream().map(p -> Formats.hm(p.at())).toList(), List.of(
              new Chart.Series("stranded GPUs", "#d62728",
                  series.stream().map(FragmentationView.Point::strandedGpus).toList()),
              new Chart.Series("idle GPUs", "#7f7f7f",
                  series.stream().map(p -> (double) p.idleGpus()).toList())));
      return page(fragmentation, s, "fragmentation")
          .data("now", s.fragmentation().now())
          .data("chart", chart)
          .data("domains", s.fragmentation().domains(page, config.pageSize()))
          .render();
    });
  }

  /** The console's headline figures as JSON (what the live stream sends; CI reads it). */
  @GET
  @Path("api/summary")
  @Produces(MediaType.APPLICATION_JSON)
  public Map<String, Object> summary() {
    return feed.read(ConsoleResource::summaryOf);
  }

  static Map<String, Object> summaryOf(ConsoleState s) {
    return Map.of("version", s.version(), "appliedPreemptions", s.preemptions().applied(),
        "refusedPreemptions", s.preemptions().refused(), "undecodable", s.undecodable(),
        "jobs", s.trails().jobs(),
        "waiting", s.queues().lengths().values().stream().mapToInt(Integer::intValue).sum());
  }

  private static TemplateInstance page(Template t, ConsoleState s, String view) {
    return t.data("view", view).data("version", s.version()).data("undecodable", s.undecodable())
        .data("query", "");
  }

  private static Lane lane(String name) {
    try {
      return Lane.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new jakarta.ws.rs.BadRequestException("no lane " + name + "; lanes: "
          + List.of(Lane.values()));
    }
  }
}
