// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function DecisionPage() {
  return <PageHeader title="Decision" />;
}
