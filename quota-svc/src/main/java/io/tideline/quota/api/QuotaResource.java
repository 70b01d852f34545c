package io.tideline.quota.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * Quota read API, answered from the single writer's stores:
 *
 * <ul>
 *   <li>{@code GET /quota/tenants/{tenant}}: a business line's floors, caps and usage per team/queue
 *   <li>{@code GET /quota/tree}: the whole hierarchy with usage and the shared pool
 *   <li>{@code GET /quota/jobs/{jobId}/verdict}: a job's last verdict with its reason and trace
 *   <li>{@code GET /quota/billing/{tenant}/{day}}: a tenant's bill for a UTC day (YYYY-MM-DD)
 * </ul>
 *
 * 404 when there is nothing (yet) for the key; 503 while the stores are restoring.
 */
@Path("/quota")
@Produces(MediaType.APPLICATION_JSON)
public class QuotaResource {

  private final QuotaQueries queries;

  public QuotaResource(QuotaQueries queries) {
    this.queries = queries;
  }

  @GET
  @Path("/tenants/{tenant}")
  public Response tenant(@PathParam("tenant") String tenant) {
    return answer(() -> queries.tenant(tenant), "no tenant '" + tenant + "'");
  }

  @GET
  @Path("/tree")
  public Response tree() {
    return answer(queries::tree, "no quota definition in force yet");
  }

  @GET
  @Path("/jobs/{jobId}/verdict")
  public Response verdict(@PathParam("jobId") String jobId) {
    return answer(() -> queries.verdict(jobId), "no verdict for job '" + jobId + "'");
  }

  @GET
  @Path("/billing/{tenant}/{day}")
  public Response billing(@PathParam("tenant") String tenant, @PathParam("day") String day) {
    try {
      LocalDate.parse(day);
    } catch (DateTimeParseException e) {
      return Response.status(400).entity(Map.of("error", "day must be YYYY-MM-DD, got " + day))
          .build();
    }
    return answer(() -> queries.billing(tenant, day),
        "no usage billed to '" + tenant + "' on " + day);
  }

  private static Response answer(java.util.function.Supplier<Optional<?>> q, String missing) {
    try {
      Optional<?> v = q.get();
      return v.isPresent() ? Response.ok(v.get()).build()
          : Response.status(404).entity(Map.of("error", missing)).build();
    } catch (InvalidStateStoreException e) {
      return Response.status(503).entity(Map.of("error", "quota state is not available yet: "
          + e.getMessage())).build();
    }
  }
}
