package io.tideline.preemption.api;

import io.tideline.platform.security.RestGuard;
import io.tideline.preemption.view.Explain;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * Preemption read API (P7: every decision can be explained), answered from the decision store:
 *
 * <ul>
 *   <li>{@code GET /decisions?limit=N}: the N most recent decisions as JSON summaries (default
 *       20, at most 500)
 *   <li>{@code GET /decisions/{id}}: one decision explained as text — trigger, verdict, victims
 *       with cost and compensation, cost against gain, the full rule trace. Ids contain slashes
 *       ({@code c1/preempt/job-7/v12/decision}) and are taken whole.
 * </ul>
 *
 * 404 for an unknown id, 400 for a limit outside [1, 500], 503 while the store is restoring. With
 * bearer tokens on (ADR 0026) decisions are for operators (they name every tenant's jobs): 403.
 */
@Path("/decisions")
public class DecisionResource {

  static final int MAX_LIMIT = 500;

  private final DecisionQueries queries;
  private final RestGuard guard;

  public DecisionResource(DecisionQueries queries, RestGuard guard) {
    this.queries = queries;
    this.guard = guard;
  }

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  public Response recent(@QueryParam("limit") @DefaultValue("20") int limit) {
    guard.require((access, caller) -> access.readFleet(caller, "preemption decisions"));
    if (limit < 1 || limit > MAX_LIMIT) {
      return Response.status(400).type(MediaType.APPLICATION_JSON)
          .entity(Map.of("error", "limit must be in [1, " + MAX_LIMIT + "], got " + limit))
          .build();
    }
    try {
      return Response.ok(queries.recent(limit).stream().map(Explain::summary).toList()).build();
    } catch (InvalidStateStoreException e) {
      return unavailable(e);
    }
  }

  @GET
  @Path("/{id: .+}")
  @Produces(MediaType.TEXT_PLAIN)
  public Response explain(@PathParam("id") String id) {
    guard.require((access, caller) -> access.readFleet(caller, "preemption decisions"));
    try {
      return queries.get(id).map(d -> Response.ok(Explain.render(d)).build())
          .orElseGet(() -> Response.status(404).entity("no preemption decision '" + id + "'\n")
              .build());
    } catch (InvalidStateStoreException e) {
      return unavailable(e);
    }
  }

  private static Response unavailable(InvalidStateStoreException e) {
    return Response.status(503).type(MediaType.TEXT_PLAIN)
        .entity("decision store not ready: " + e.getMessage() + "\n").build();
  }
}
