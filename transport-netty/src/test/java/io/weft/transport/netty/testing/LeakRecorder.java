package io.weft.transport.netty.testing;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Makes Netty's leak detectors record what they report, for {@link NettyLeaks} to fail on. A launcher session
 * listener (registered in {@code META-INF/services}), so that it runs before any test, and so before Netty creates
 * the detector of its buffers, which it does once per class. The level is the build's
 * ({@code io.netty.leakDetection.level=paranoid}: every buffer tracked).
 */
public final class LeakRecorder implements LauncherSessionListener {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                    long maxActive) {
                return new Recording<>(resource, samplingInterval);
            }
        });
    }

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        // the static initializer has run: nothing else to do
    }

    /** The leaks reported so far, each as Netty describes it. */
    public static List<String> leaks() {
        return List.copyOf(LEAKS);
    }

    private static final class Recording<T> extends ResourceLeakDetector<T> {
        Recording(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK: " + resourceType + " not released" + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK: " + resourceType + " not released (untraced)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
