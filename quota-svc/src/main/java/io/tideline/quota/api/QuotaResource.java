package io.tideline.quota.api;

import io.tideline.platform.security.RestGuard;
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
 * 404 when there is nothing (yet) for the key; 503 while the stores are restoring. With bearer
 * tokens on (ADR 0026) a tenant's quota and bill are for its members and operators, the tree and
 * job verdicts (every tenant's) for operators: 403 otherwise.
 */
@Path("/quota")
@Produces(MediaType.APPLICATION_JSON)
public class QuotaResource {

  private final QuotaQueries queries;
  private final RestGuard guard;

  public QuotaResource(QuotaQueries queries, RestGuard guard) {
    this.queries = queries;
    this.guard = guard;
  }

  @GET
  @Path("/tenants/{tenant}")
  public Response tenant(@PathParam("tenant") String tenant) {
    guard.require((access, caller) -> access.readTenant(caller, tenant));
    return answer(() -> queries.tenant(tenant), "no tenant '" + tenant + "'");
  }

  @GET
  @Path("/tree")
  public Response tree() {
    guard.require((access, caller) -> access.readFleet(caller, "the quota tree"));
    return answer(queries::tree, "no quota definition in force yet");
  }

  @GET
  @Path("/jobs/{jobId}/verdict")
  public Response verdict(@PathParam("jobId") String jobId) {
    guard.require((access, caller) -> access.readFleet(caller, "a job's verdict"));
    return answer(() -> queries.verdict(jobId), "no verdict for job '" + jobId + "'");
  }

  @GET
  @Path("/billing/{tenant}/{day}")
  public Response billing(@PathParam("tenant") String tenant, @PathParam("day") String day) {
    guard.require((access, caller) -> access.readTenant(caller, tenant));
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
