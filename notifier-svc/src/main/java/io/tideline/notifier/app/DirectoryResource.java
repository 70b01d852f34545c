package io.tideline.notifier.app;

import io.tideline.events.NotifyPreference;
import io.tideline.platform.security.RestGuard;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.WebhookTargets;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code PUT /directory/{userId}}: a user sets where and how they are told (O3). The entry is
 * checked with the platform's shared input check — the same one the engine applies to every
 * {@code notify.directory} record — so an unknown channel (FAX), a zone that is none
 * (Mars/Olympus), quiet hours of 25:99 or a {@code file://} webhook get 400 with the reasons,
 * never 500; a valid entry is published on {@code notify.directory} (202). A webhook's host is
 * looked up here: one that is or resolves to a loopback, link-local or private address is refused
 * (400) unless listed in {@code tideline.intake.webhook-internal-hosts}. With bearer tokens on
 * (ADR 0026) only the user or an operator may change the entry (403).
 */
@Path("/directory")
public class DirectoryResource {

  /**
   * The JSON body (fields as in {@code NotifyPreference.avsc}).
   *
   * @param channels SLACK and/or EMAIL; empty = the configured defaults
   * @param email e-mail address
   * @param slackWebhookUrl the user's own incoming webhook (https)
   * @param slackUserId Slack member to mention
   * @param locale notice language (en, zh-CN)
   * @param zoneId the user's zone (e.g. Europe/Paris)
   * @param quietStart local start of quiet hours, HH:mm
   * @param quietEnd local end of quiet hours, HH:mm
   * @param digest whether bursts are digested
   */
  public record Body(List<String> channels, String email, String slackWebhookUrl,
      String slackUserId, String locale, String zoneId, String quietStart, String quietEnd,
      Boolean digest) {}

  private final NotifierService service;
  private final RestGuard guard;

  public DirectoryResource(NotifierService service, RestGuard guard) {
    this.service = service;
    this.guard = guard;
  }

  @PUT
  @Path("{userId}")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response put(@PathParam("userId") String userId, Body body) {
    guard.require((access, caller) -> access.writeDirectory(caller, userId));
    if (body == null) {
      return Response.status(400).entity(Map.of("errors", List.of("body: required"))).build();
    }
    // The adapter stamps the entry with the time it was made, as `tideline submit` does.
    Instant now = Instant.now();
    NotifyPreference entry = NotifyPreference.newBuilder().setUserId(userId)
        .setChannels(body.channels() == null ? List.of() : body.channels())
        .setEmail(body.email()).setSlackWebhookUrl(body.slackWebhookUrl())
        .setSlackUserId(body.slackUserId())
        .setLocale(body.locale() == null ? "en" : body.locale())
        .setZoneId(body.zoneId() == null ? service.config().defaults().zone() : body.zoneId())
        .setQuietStart(body.quietStart()).setQuietEnd(body.quietEnd())
        .setDigest(body.digest() == null ? service.config().defaults().digest() : body.digest())
        .setUpdatedAt(now).build();
    String problem = new EventValidator(service.bounds(), WebhookTargets.DNS).problem(
        NotifierEngine.DIRECTORY, userId.getBytes(StandardCharsets.UTF_8), entry, now.toEpochMilli());
    if (problem != null) {
      String reasons = problem.substring(problem.indexOf(": ") + 2);
      return Response.status(400).entity(Map.of("errors",
          Arrays.stream(reasons.split("; ")).toList())).build();
    }
    NotifierEngine engine = service.engine();
    if (engine == null) {
      return Response.status(503).entity(Map.of("errors", List.of("notifier is starting")))
          .build();
    }
    try {
      engine.publishPreference(entry);
    } catch (RuntimeException e) {
      return Response.status(503).entity(Map.of("errors",
          List.of("could not publish the entry: " + e.getMessage()))).build();
    }
    return Response.accepted(Map.of("userId", userId)).build();
  }
}
