package io.tideline.platform.validation;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where a webhook may point (issue #18 point 4): outside the network Tideline runs in. A webhook
 * whose host is, or resolves to, a loopback, link-local (169.254.169.254, the clouds' metadata
 * service, among them), private, shared (CGNAT), unspecified or multicast address is refused
 * unless an operator listed the host ({@code tideline.intake.webhook-internal-hosts}): otherwise
 * anyone who may set a webhook turns the notifier into a relay to the services' own ports.
 *
 * <p>The rule is pure; the name lookup is the caller's {@link Resolver}: {@link #LITERALS} (no
 * lookup: IP literals and {@code localhost} only, for every service's shared input check) or
 * {@link #DNS} (the notifier's intake and delivery, which may do I/O).
 */
public final class WebhookTargets {

  /** Resolves a host name to its addresses. */
  @FunctionalInterface
  public interface Resolver {
    /**
     * The host's addresses; empty when this resolver does not look names up.
     *
     * @throws UnknownHostException the name does not resolve
     */
    List<InetAddress> addresses(String host) throws UnknownHostException;
  }

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  /** No lookup: an IP literal is its own address, a name has none known. */
  public static final Resolver LITERALS = host -> isLiteral(host)
      ? List.of(InetAddress.getByName(host)) : List.of();

  /** The system resolver (every address of the name). */
  public static final Resolver DNS = host -> List.of(InetAddress.getAllByName(host));

  /**
   * {@link #DNS}, where a name that does not resolve (now) is left to the sender, which fails
   * and retries: for delivery, which re-checks what intake accepted.
   */
  public static final Resolver DNS_IF_RESOLVABLE = host -> {
    try {
      return DNS.addresses(host);
    } catch (UnknownHostException e) {
      return List.of();
    }
  };

  private WebhookTargets() {}

  /**
   * Why a webhook to {@code host} with {@code scheme} is refused, or null.
   *
   * @param scheme the URL's scheme, lower case, already one of the allowed schemes
   * @param host the URL's host
   * @param internalHosts the operator's allowlist ({@link InputBounds#webhookInternalHosts})
   * @param resolver how names are looked up
   */
  public static String problem(String scheme, String host, Set<String> internalHosts,
      Resolver resolver) {
    String h = InputBounds.host(host);
    if (internalHosts.contains(h)) {
      return null;
    }
    if (!"https".equals(scheme)) {
      return "scheme '" + scheme + "' is allowed only for a host in "
          + "tideline.intake.webhook-internal-hosts; use https";
    }
    if (h.equals("localhost") || h.endsWith(".localhost")) {
      return "host '" + h + "' is loopback (not in tideline.intake.webhook-internal-hosts)";
    }
    List<InetAddress> addresses;
    try {
      addresses = resolver.addresses(h);
    } catch (UnknownHostException e) {
      return "host '" + h + "' does not resolve";
    }
    for (InetAddress a : addresses) {
      String kind = internalKind(a);
      if (kind != null) {
        return "host '" + h + "' " + (isLiteral(h) ? "is" : "resolves to " + a.getHostAddress()
            + ",") + " a " + kind + " address (not in tideline.intake.webhook-internal-hosts)";
      }
    }
    return null;
  }

  /** What kind of address inside the network {@code a} is, or null for a public one. */
  static String internalKind(InetAddress a) {
    if (a.isLoopbackAddress()) {
      return "loopback";
    }
    if (a.isLinkLocalAddress()) {
      return "link-local";
    }
    if (a.isSiteLocalAddress()) {
      return "private";
    }
    if (a.isAnyLocalAddress()) {
      return "unspecified";
    }
    if (a.isMulticastAddress()) {
      return "multicast";
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int b0 = b[0] & 0xff;
      int b1 = b[1] & 0xff;
      if (b0 == 0) {
        return "unspecified";
      }
      if (b0 == 100 && b1 >= 64 && b1 < 128) {
        return "shared (carrier-grade NAT)";
      }
      if (b0 == 255) {
        return "broadcast";
      }
    }
    if (a instanceof Inet6Address && (b[0] & 0xfe) == 0xfc) {
      return "private (unique local)";
    }
    return null;
  }

  /** An IPv4 literal or an IPv6 literal (brackets stripped): never looked up. */
  static boolean isLiteral(String host) {
    return IPV4.matcher(host).matches() || host.contains(":");
  }
}
