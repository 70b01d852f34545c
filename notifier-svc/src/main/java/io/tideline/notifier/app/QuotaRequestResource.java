package io.tideline.notifier.app;

import io.tideline.notifier.compose.QuotaRequest;
import io.tideline.platform.security.RestGuard;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /quota-requests}: the quota-request link's form posts here; the notifier answers the
 * user with a QUOTA_REQUEST_ACK notice on their channels (P7). The request id makes it idempotent:
 * posting the same request again sends nothing new. Forwarding the request to the quota owners
 * is quota-svc's business, not the notifier's. With bearer tokens on (ADR 0026) a user may ask only
 * for themselves: the body's {@code userId} is the token's subject, or 403.
 */
@Path("/quota-requests")
public class QuotaRequestResource {

  /**
   * The JSON body.
   *
   * @param requestId caller's id of the request
   * @param userId who asks
   * @param tenant for which tenant
   * @param jobId the job that prompted it (optional)
   * @param gpus how many more guaranteed GPUs (> 0)
   * @param requestedAt ISO-8601 instant of the request
   */
  public record Body(String requestId, String userId, String tenant, String jobId, Double gpus,
      String requestedAt) {}

  private final NotifierService service;
  private final RestGuard guard;

  public QuotaRequestResource(NotifierService service, RestGuard guard) {
    this.service = service;
    this.guard = guard;
  }

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response request(Body body) {
    // 1. Check the body and say what is wrong.
    List<String> errors = new ArrayList<>();
    if (body == null) {
      errors.add("body: required");
    } else {
      blank(errors, "requestId", body.requestId());
      blank(errors, "userId", body.userId());
      blank(errors, "tenant", body.tenant());
      for (String[] f : new String[][] {{"requestId", body.requestId()},
          {"userId", body.userId()}, {"tenant", body.tenant()}, {"jobId", body.jobId()}}) {
        if (f[1] != null && f[1].length() > service.bounds().maxIdLength()) {
          errors.add(f[0] + ": at most " + service.bounds().maxIdLength() + " characters");
        }
      }
      if (body.gpus() == null || !(body.gpus() > 0)) {
        errors.add("gpus: must be > 0");
      }
    }
    Instant at = null;
    if (body != null) {
      try {
        at = Instant.parse(body.requestedAt());
      } catch (RuntimeException e) {
        errors.add("requestedAt: must be an ISO-8601 instant, got " + body.requestedAt());
      }
    }
    if (!errors.isEmpty()) {
      return Response.status(400).entity(Map.of("errors", errors)).build();
    }
    guard.require((access, caller) -> access.requestQuota(caller, body.userId()));
    NotifierEngine engine = service.engine();
    if (engine == null || !engine.restored()) {
      return Response.status(503).entity(Map.of("errors", List.of("notifier is starting"))).build();
    }
    // 2. Publish the acknowledgement; delivery follows like any notice.
    String id;
    try {
      id = engine.acknowledge(new QuotaRequest(body.requestId(), body.userId(),
          body.tenant(), body.jobId() == null ? "" : body.jobId(), body.gpus(), at));
    } catch (RuntimeException e) {
      return Response.status(503).entity(Map.of("errors",
          List.of("could not publish the acknowledgement: " + e.getMessage()))).build();
    }
    return Response.accepted(Map.of("noticeId", id)).build();
  }

  private static void blank(List<String> errors, String field, String v) {
    if (v == null || v.isBlank()) {
      errors.add(field + ": required");
    }
  }
}
