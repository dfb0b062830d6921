package io.rpcc.core.internal.transport;

/**
 * Syntax checks for what peers say about where nodes are: a host that rpcc will dial must be a DNS
 * name (letters, digits, hyphens and underscores in dot-separated labels of at most 63 characters),
 * an IPv4 address or an IPv6 literal, at most {@link WireLimits#MAX_HOST_LENGTH} characters; a port
 * must be 1..65535; a node name must be non-empty, within the node's limit and free of control
 * characters. Nothing here resolves a name.
 */
final class HostNames {
    private HostNames() {
    }

    static boolean isValidHost(String host) {
        if (host == null || host.isEmpty() || host.length() > WireLimits.MAX_HOST_LENGTH) {
            return false;
        }
        if (host.indexOf(':') >= 0) {
            return isIpv6Literal(host);
        }
        int labelStart = 0;
        for (int i = 0; i <= host.length(); i++) {
            char c = i < host.length() ? host.charAt(i) : '.';
            if (c == '.') {
                int len = i - labelStart;
                if (len < 1 || len > 63 || host.charAt(labelStart) == '-' || host.charAt(i - 1) == '-') {
                    return false;
                }
                labelStart = i + 1;
            } else if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIpv6Literal(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        int percent = h.indexOf('%'); // a zone id: fe80::1%eth0
        String address = percent >= 0 ? h.substring(0, percent) : h;
        if (address.length() < 2 || address.length() > 45) {
            return false;
        }
        for (int i = 0; i < address.length(); i++) {
            char c = address.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.')) {
                return false;
            }
        }
        if (percent >= 0) {
            String zone = h.substring(percent + 1);
            return !zone.isEmpty() && zone.length() <= 32 && zone.chars().allMatch(Character::isLetterOrDigit);
        }
        return true;
    }

    static boolean isValidPort(int port) {
        return port >= 1 && port <= 65535;
    }

    static boolean isValidNodeName(String name, int maxLength) {
        if (name == null || name.isEmpty() || name.length() > maxLength) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
