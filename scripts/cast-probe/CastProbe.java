import org.apache.paimon.casting.*;
import org.apache.paimon.types.*;
import org.apache.paimon.data.*;
import org.apache.paimon.utils.*;
import java.io.*;
import java.util.*;
/**
 * Prints what the released Paimon CastExecutors return for casts read from stdin, one per line:
 * {@code FROM|TO|VALUE} (Paimon SQL types; VALUE as text, BINARY as hex, TIMESTAMP as millis,nanos).
 * Output lines are {@code FROM|TO|VALUE => RESULT}: NORULE when no rule resolves, ERR(exception) when
 * the cast throws. Regenerates native-reader/src/decode/cast/cast_java_cases.txt:
 *
 * <pre>
 * J=jvm-bridge/java/target/paimon-1.0.0/lib/paimon-bundle-1.0.0.jar
 * javac -cp $J -d /tmp/cast-probe scripts/cast-probe/CastProbe.java
 * sed -e "/^#/d" -e "s/ => .*$//" native-reader/src/decode/cast/cast_java_cases.txt \
 *   | java -Duser.timezone=UTC -cp $J:/tmp/cast-probe CastProbe
 * </pre>
 */
public class CastProbe {
  static byte[] hex(String s){ byte[] b=new byte[s.length()/2]; for(int i=0;i<b.length;i++) b[i]=(byte)Integer.parseInt(s.substring(2*i,2*i+2),16); return b;}
  static String fmt(Object o){
    if (o==null) return "NULL";
    if (o instanceof Timestamp) { Timestamp t=(Timestamp)o; return "TS(" + t.getMillisecond()+","+t.getNanoOfMillisecond()+")"; }
    if (o instanceof byte[]) { StringBuilder sb=new StringBuilder("BIN("); for(byte b:(byte[])o) sb.append(String.format("%02x",b)); return sb.append(")").toString(); }
    if (o instanceof BinaryString) return "STR(" + o.toString() + ")";
    if (o instanceof Decimal) return "DEC(" + ((Decimal)o).toBigDecimal().toPlainString() + ")";
    return o.getClass().getSimpleName() + "(" + o + ")";
  }
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      String[] p = line.split("\\|", 3);
      DataType from = parseType(p[0]), to = parseType(p[1]);
      String v = p[2];
      Object in;
      switch (from.getTypeRoot()) {
        case CHAR: case VARCHAR: in = BinaryString.fromString(v); break;
        case BOOLEAN: in = Boolean.parseBoolean(v); break;
        case TINYINT: in = Byte.parseByte(v); break;
        case SMALLINT: in = Short.parseShort(v); break;
        case INTEGER: case DATE: case TIME_WITHOUT_TIME_ZONE: in = Integer.parseInt(v); break;
        case BIGINT: in = Long.parseLong(v); break;
        case FLOAT: in = Float.parseFloat(v); break;
        case DOUBLE: in = Double.parseDouble(v); break;
        case BINARY: case VARBINARY: in = hex(v); break;
        case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE: { String[] q=v.split(","); in = Timestamp.fromEpochMillis(Long.parseLong(q[0]), Integer.parseInt(q[1])); break; }
        case DECIMAL: { DecimalType d=(DecimalType)from; in = Decimal.fromBigDecimal(new java.math.BigDecimal(v), d.getPrecision(), d.getScale()); break; }
        default: throw new RuntimeException("src " + from);
      }
      CastExecutor<Object,Object> ex = (CastExecutor<Object,Object>) CastExecutors.resolve(from, to);
      String out;
      if (ex == null) out = "NORULE";
      else try { out = fmt(ex.cast(in)); } catch (Throwable t) { out = "ERR(" + t.getClass().getSimpleName() + ")"; }
      System.out.println(p[0] + "|" + p[1] + "|" + v + " => " + out);
    }
  }
  static DataType parseType(String s) { return DataTypeJsonParser.parseAtomicTypeSQLString(s); }
}
