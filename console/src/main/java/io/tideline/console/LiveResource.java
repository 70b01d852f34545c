package io.tideline.console;

import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * The live stream (SSE): every {@code tideline.console.live-interval}, if the console folded new
 * records, one event with the headline figures; the pages' script refreshes what they show.
 */
@Path("/live")
public class LiveResource {

  private final ConsoleFeed feed;
  private final ConsoleConfig config;

  public LiveResource(ConsoleFeed feed, ConsoleConfig config) {
    this.feed = feed;
    this.config = config;
  }

  @GET
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @RestStreamElementType(MediaType.APPLICATION_JSON)
  public Multi<Map<String, Object>> live() {
    return Multi.createFrom().ticks().every(config.liveInterval())
        .onItem().transform(tick -> feed.read(ConsoleResource::summaryOf))
        .skip().repetitions();
  }
}
