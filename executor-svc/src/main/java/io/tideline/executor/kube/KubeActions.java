package io.tideline.executor.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Every write the executor makes to the API server, on the fabric8 client: bind (the
 * {@code pods/binding} subresource, as kube-scheduler does), annotate, evict ({@code policy/v1},
 * so PodDisruptionBudgets are respected), delete, and Kubernetes Events. Nothing here decides.
 * Not final: a test wraps it to stop a replica between two binds.
 */
public class KubeActions {

  /** Component name in the Events we write, like {@code default-scheduler}'s. */
  public static final String COMPONENT = "tideline-executor";

  /** What a bind came to. */
  public enum BindResult { BOUND, ALREADY_BOUND_THERE, CONFLICT }

  private final KubernetesClient client;
  private final Clock clock;
  private final String identity;

  public KubeActions(KubernetesClient client, Clock clock, String identity) {
    this.client = client;
    this.clock = clock;
    this.identity = identity;
  }

  public KubernetesClient client() {
    return client;
  }

  /**
   * Binds {@code pod} to {@code node}, writing {@code annotations} in the same call (the Binding's
   * annotations are copied onto the pod by the API server). A pod already bound answers 409: it
   * is re-read, and a pod bound to the same node counts as done (a previous replica's bind, never
   * a second one).
   */
  public BindResult bind(Pod pod, String node, Map<String, String> annotations) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Map<String, Object> binding = new LinkedHashMap<>();
    binding.put("apiVersion", "v1");
    binding.put("kind", "Binding");
    binding.put("metadata", Map.of("name", name, "namespace", ns, "uid",
        pod.getMetadata().getUid(), "annotations", annotations));
    binding.put("target", Map.of("apiVersion", "v1", "kind", "Node", "name", node));
    String url = client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
        + ns + "/pods/" + name + "/binding";
    HttpRequest req = client.getHttpClient().newHttpRequestBuilder().uri(url)
        .post("application/json", Serialization.asJson(binding)).build();
    HttpResponse<String> resp;
    try {
      resp = client.getHttpClient().sendAsync(req, String.class).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted while binding " + ns + "/" + name);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException("binding " + ns + "/" + name + " to " + node
          + " failed: " + e, e);
    }
    if (resp.code() == 201 || resp.code() == 200) {
      return BindResult.BOUND;
    }
    if (resp.code() == 409) {
      Pod now = client.pods().inNamespace(ns).withName(name).get();
      if (now != null && node.equals(now.getSpec().getNodeName())) {
        return BindResult.ALREADY_BOUND_THERE;
      }
      return BindResult.CONFLICT;
    }
    throw new KubernetesClientException("binding " + ns + "/" + name + " to " + node
        + " answered " + resp.code() + ": " + resp.body(), resp.code(), null);
  }

  /** Merges {@code annotations} into the pod's (a JSON merge patch; null values remove). */
  public Pod annotate(Pod pod, Map<String, String> annotations) {
    return client.pods().inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("metadata", Map.of("annotations", annotations))));
  }

  /**
   * Asks the API server to evict the pod with {@code graceSeconds} ({@code policy/v1}).
   *
   * @return false when a PodDisruptionBudget does not allow it now (429): the caller retries
   */
  public boolean evict(Pod pod, long graceSeconds) {
    return client.pods().inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .evict(new EvictionBuilder().withNewMetadata()
            .withName(pod.getMetadata().getName())
            .withNamespace(pod.getMetadata().getNamespace()).endMetadata()
            .withDeleteOptions(new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder()
                .withGracePeriodSeconds(graceSeconds).build())
            .build());
  }

  /** Deletes the pod (the all-or-nothing rollback of a gang: a bound pod cannot be unbound). */
  public void delete(Pod pod) {
    client.pods().inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName()).delete();
  }

  /** A Kubernetes Event on the pod ({@code kubectl describe pod} and {@code get events} show it). */
  public void event(Pod pod, String type, String reason, String message) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    String ns = pod.getMetadata().getNamespace();
    try {
      client.v1().events().inNamespace(ns).resource(new EventBuilder()
          .withNewMetadata()
          .withName(pod.getMetadata().getName() + "." + Long.toHexString(now.toEpochMilli())
              + UUID.randomUUID().toString().substring(0, 8))
          .withNamespace(ns).endMetadata()
          .withInvolvedObject(new ObjectReferenceBuilder().withKind("Pod").withApiVersion("v1")
              .withNamespace(ns).withName(pod.getMetadata().getName())
              .withUid(pod.getMetadata().getUid()).build())
          .withType(type)
          .withReason(reason)
          .withMessage(message.length() > 1000 ? message.substring(0, 1000) : message)
          .withNewSource().withComponent(COMPONENT).endSource()
          .withReportingComponent(COMPONENT)
          .withReportingInstance(identity)
          .withFirstTimestamp(now.toString())
          .withLastTimestamp(now.toString())
          .withCount(1)
          .build()).create();
    } catch (KubernetesClientException e) {
      // an Event is a courtesy: never let it stop the enactment
      org.jboss.logging.Logger.getLogger(KubeActions.class).warnf(
          "could not record event %s on %s/%s: %s", reason, ns, pod.getMetadata().getName(),
          e.getMessage());
    }
  }

  /** The current pods of {@code names} in {@code ns} (null entries for pods that are gone). */
  public List<Pod> reread(String ns, List<String> names) {
    return names.stream().map(n -> client.pods().inNamespace(ns).withName(n).get()).toList();
  }
}
