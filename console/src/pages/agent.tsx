// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function AgentPage() {
  return <PageHeader title="Agent" />;
}
