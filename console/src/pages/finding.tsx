// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function FindingPage() {
  return <PageHeader title="Finding" />;
}
