package io.rpcc.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.legacy.LegacyHttp;
import io.rpcc.node.RpccNode;
import io.rpcc.repository.FileSystemChainingFunctionRepository;
import io.rpcc.server.RpccServer;
import io.rpcc.testcontainers.RpccNodeContainer;
import io.rpcc.testkit.WanCluster;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What users import: every published jar is a named module ({@code Automatic-Module-Name}), and
 * {@code rpcc-bom} manages every published module at the project's version.
 */
class PublishedArtifactsTest {
    /** A class of each published library jar, and the module name its jar must have. */
    private static final Map<Class<?>, String> MODULES = new LinkedHashMap<>();

    static {
        MODULES.put(ChainException.class, "io.rpcc.api");
        MODULES.put(NodeBuilder.class, "io.rpcc.core");
        MODULES.put(RpccServer.class, "io.rpcc.server");
        MODULES.put(LegacyHttp.class, "io.rpcc.legacy");
        MODULES.put(RpccClient.class, "io.rpcc.client");
        MODULES.put(FileSystemChainingFunctionRepository.class, "io.rpcc.repository");
        MODULES.put(WanCluster.class, "io.rpcc.testkit");
        MODULES.put(RpccNode.class, "io.rpcc.node");
        MODULES.put(RpccNodeContainer.class, "io.rpcc.testcontainers");
    }

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyPublishedJarIsANamedModule() throws Exception {
        Map<Path, String> jars = new LinkedHashMap<>();
        MODULES.forEach((type, name) -> jars.put(Path.of(codeSource(type)), name));
        jars.put(jarOf("rpcc-transport"), "io.rpcc.transport");
        jars.put(jarOf("rpcc-js"), "io.rpcc.js");
        jars.put(jarOf("rpcc-function-java"), "io.rpcc.function.java");
        Assumptions.assumeTrue(jars.keySet().stream().allMatch(p -> p.toString().endsWith(".jar")),
                "the modules are class directories, not jars: run `./rpcc mvn verify` (this test checks the packaged jars)");
        List<String> wrong = new ArrayList<>();
        jars.forEach((jar, expected) -> {
            ModuleDescriptor d = ModuleFinder.of(jar).findAll().stream().map(ModuleReference::descriptor).findFirst().orElseThrow();
            if (!d.name().equals(expected)) {
                wrong.add(jar.getFileName() + " is module '" + d.name() + "', expected '" + expected
                        + "' (set rpcc.module.name in its pom: the parent writes it as Automatic-Module-Name)");
            }
        });
        assertEquals(List.of(), wrong);
    }

    private static java.net.URI codeSource(Class<?> type) {
        try {
            return type.getProtectionDomain().getCodeSource().getLocation().toURI();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** rpcc-transport, rpcc-js and rpcc-function-java have no API class to name; their jars sit beside rpcc-core's in the reactor. */
    private static Path jarOf(String module) {
        Path core = Path.of(codeSource(NodeBuilder.class));
        if (!core.toString().endsWith(".jar")) {
            return core;
        }
        return ROOT.resolve(module).resolve("target").resolve(module + "-" + version() + ".jar");
    }

    @Test
    void theBomManagesEveryPublishedModuleAtTheProjectVersion() throws Exception {
        Document root = parse(ROOT.resolve("pom.xml"));
        String version = version();
        Document bom = parse(ROOT.resolve("rpcc-bom/pom.xml"));
        assertEquals(version, child(bom.getDocumentElement(), "version"), "rpcc-bom's version");
        Set<String> published = new TreeSet<>();
        for (Element m : elements(child(root.getDocumentElement(), "modules", Element.class), "module")) {
            Document pom = parse(ROOT.resolve(m.getTextContent().trim()).resolve("pom.xml"));
            Element project = pom.getDocumentElement();
            Element properties = child(project, "properties", Element.class);
            boolean skipped = properties != null && "true".equals(child(properties, "maven.deploy.skip"));
            if (!skipped && !"pom".equals(child(project, "packaging"))) {
                published.add(child(project, "artifactId"));
            }
        }
        Set<String> managed = new TreeSet<>();
        Element management = child(bom.getDocumentElement(), "dependencyManagement", Element.class);
        for (Element d : elements(child(management, "dependencies", Element.class), "dependency")) {
            assertEquals("io.rpcc", child(d, "groupId"));
            assertEquals(version, child(d, "version"), () -> "version of " + child(d, "artifactId") + " in rpcc-bom");
            managed.add(child(d, "artifactId"));
        }
        assertTrue(published.contains("rpcc-core") && published.contains("rpcc-node"), published::toString);
        assertEquals(published, managed, "rpcc-bom must list every published module (a module that is not published "
                + "sets maven.deploy.skip=true in its pom)");
    }

    @Test
    void everyPublishedModuleShipsSourcesAndJavadoc() throws Exception {
        // the root pom makes both jars at package; a module that is not published turns them off
        Document root = parse(ROOT.resolve("pom.xml"));
        for (Element m : elements(child(root.getDocumentElement(), "modules", Element.class), "module")) {
            Element project = parse(ROOT.resolve(m.getTextContent().trim()).resolve("pom.xml")).getDocumentElement();
            Element properties = child(project, "properties", Element.class);
            boolean published = properties == null || !"true".equals(child(properties, "maven.deploy.skip"));
            for (String skip : new String[] {"maven.source.skip", "maven.javadoc.skip"}) {
                boolean skipped = properties != null && "true".equals(child(properties, skip));
                assertEquals(!published, skipped, () -> child(project, "artifactId") + (published
                        ? " is published (no maven.deploy.skip), so it must not set " + skip
                        : " is not published (maven.deploy.skip), so it sets " + skip + "=true"));
            }
        }
    }

    private static String version() {
        try {
            return child(parse(ROOT.resolve("pom.xml")).getDocumentElement(), "version");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Document parse(Path pom) throws Exception {
        assertTrue(Files.isRegularFile(pom), pom + " is missing");
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static List<Element> elements(Element parent, String name) {
        List<Element> result = new ArrayList<>();
        NodeList children = parent.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals(name)) {
                result.add(e);
            }
        }
        return result;
    }

    private static <T extends Node> T child(Element parent, String name, Class<T> type) {
        List<Element> found = elements(parent, name);
        return found.isEmpty() ? null : type.cast(found.getFirst());
    }

    private static String child(Element parent, String name) {
        Element e = child(parent, name, Element.class);
        return e == null ? null : e.getTextContent().trim();
    }
}
