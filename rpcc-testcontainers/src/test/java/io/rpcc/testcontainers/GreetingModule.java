package io.rpcc.testcontainers;

import io.rpcc.node.ServiceModule;
import io.rpcc.server.RpccServer;

/** A node service module (a {@code ServiceLoader} provider), for {@link RpccNodeContainerConfigTest}. */
public class GreetingModule implements ServiceModule {
    @Override
    public void configure(RpccServer.Builder server) {
        server.service("greet", who -> "hi " + who);
    }
}
