package io.tideline.preemption.api;

import io.tideline.platform.security.RestGuard;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * {@code GET /view}: how much of the fleet preemption's view holds, per cluster and entry kind
 * (see {@link DecisionQueries#viewCounts()}); 503 while the store is restoring. For operators
 * when bearer tokens are on (ADR 0026).
 */
@Path("/view")
public class ViewResource {

  private final DecisionQueries queries;
  private final RestGuard guard;

  public ViewResource(DecisionQueries queries, RestGuard guard) {
    this.queries = queries;
    this.guard = guard;
  }

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  public Response counts() {
    guard.require((access, caller) -> access.readFleet(caller, "preemption's view"));
    try {
      return Response.ok(queries.viewCounts()).build();
    } catch (InvalidStateStoreException e) {
      return Response.status(503).type(MediaType.TEXT_PLAIN)
          .entity("view store not ready: " + e.getMessage() + "\n").build();
    }
  }
}
