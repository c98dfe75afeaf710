// DynamoDB Local listening on 127.0.0.1 only. Its jar has no option for the address: its Jetty
// server is made with a port alone, so it listens on every interface, and anyone who can reach
// the machine could read and write its tables. This starts the jar's own server, as its main does
// with the same arguments, after binding its connector to loopback. scripts/dynamodb-local.sh runs
// it in Java's source-file mode, with the jar on the class path (whose manifest brings Jetty):
//
//   java -cp DynamoDBLocal.jar scripts/DynamoDBLocalLoopback.java -port 8000 ...
//
// A jar whose server is built differently makes this fail at start-up, never listen widely.

import java.lang.reflect.Field;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDBLocalLoopback {
    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        Connector[] connectors = server.getConnectors();
        if (connectors.length == 0) {
            throw new IllegalStateException("DynamoDB Local's server has no connector to bind");
        }
        for (Connector connector : connectors) {
            ((ServerConnector) connector).setHost("127.0.0.1");
        }
        proxy.start();
    }
}
