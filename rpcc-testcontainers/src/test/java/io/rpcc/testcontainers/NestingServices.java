package io.rpcc.testcontainers;

/** A service class with a nested and an anonymous class, for {@link RpccNodeContainerConfigTest}'s jar packing. */
public class NestingServices {
    final Runnable anonymous = new Runnable() {
        @Override
        public void run() {
        }
    };

    /** A public static nested class: the node can load it by name too. */
    public static class Nested {
    }

    static class Hidden {
    }
}
