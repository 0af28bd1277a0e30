// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function EscalationPage() {
  return <PageHeader title="Escalation" />;
}
